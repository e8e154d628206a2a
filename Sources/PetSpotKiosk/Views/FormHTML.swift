/// The report's three steps as HTML (photo, details, contact) and the pieces
/// their forms share: a labelled field, a text area, the permission alert.
enum FormHTML {
    /// Step 1.
    static func photo(_ page: PageView, _ photo: PhotoView) -> HTML {
        let t = page.t
        let retryOr = { (text: String) -> String in photo.retry ? t.photoTryAgain : text }
        let card = photo.card.html { card in
            """
              <div class="photo-card" id="animalPhoto.confirmationCard">
                \(if: card.previewable, """
            <img class="thumb" src="/report/photo/preview" alt="\(t.photoPreviewAlt)" id="animalPhoto.preview.image">
            """)
                <div class="photo-meta">
                  <p class="photo-added" id="animalPhoto.added.label">\(t.photoAdded)</p>
                  <dl>
                    <dt>\(t.photoFileName)</dt><dd id="animalPhoto.fileName.label">\(card.fileName)</dd>
                    <dt>\(t.photoSize)</dt><dd id="animalPhoto.fileSize.label">\(card.size)</dd>
                    <dt>\(t.photoDimensions)</dt><dd id="animalPhoto.dimensions.label">\(card.dimensions)</dd>
                  </dl>
                </div>
                <form autocomplete="off" method="post" action="/report/photo/remove?_csrf=\(page.csrf)" \
            class="photo-remove">
                  <button type="submit" class="button secondary" id="animalPhoto.remove">\(t.removeButton)</button>
                </form>
              </div>

            """
        }
        let camera: HTML = """
                <div class="camera-start js-only" id="animalPhoto.cameraStart">
                  <button type="button" class="button primary big" id="animalPhoto.camera" \
            aria-describedby="animalPhoto.fileInput.error">\(retryOr(t.cameraOpen))</button>
                </div>
                <div class="camera-view" id="animalPhoto.cameraView" hidden>
                  <video id="animalPhoto.camera.video" autoplay muted playsinline \
            aria-label="\(t.cameraViewLabel)"></video>
                  <p class="hint" id="animalPhoto.camera.hint">\(t.cameraHint)</p>
                  <div class="camera-buttons">
                    <button type="button" class="button secondary" id="animalPhoto.camera.close">\(t.cameraClose)</button>
                    <button type="button" class="button primary big" id="animalPhoto.capture">\(t.cameraCapture)</button>
                  </div>
                </div>

            """
        let upload: HTML = """
              <form autocomplete="off" method="post" action="/report/photo?_csrf=\(page.csrf)" \
            enctype="multipart/form-data" id="photoForm" class="upload" data-max-bytes="\(photo.maximumBytes)" \
            data-too-large="\(t.photoTooLargeFormat)" data-retry="\(t.photoTryAgain)" \
            data-camera-missing="\(t.cameraMissing)" data-camera-refused="\(t.cameraRefused)">
            \(if: photo.camera, camera)\
                <div class="file-source\(if: !photo.file, " nojs-only")">
                <label class="dropzone" for="animalPhoto.fileInput.input" id="animalPhoto.browse">
                  <span class="dropzone-title" id="animalPhoto.browse.label">\(retryOr(t.photoPick))</span>
                  <span class="dropzone-hint" id="animalPhoto.fileInput.hint">\(t.photoHint)</span>
                </label>
                <input type="file" name="photo" id="animalPhoto.fileInput.input" accept="image/*" \
            aria-invalid="\(photo.error != nil)" \
            aria-describedby="animalPhoto.fileInput.hint\(if: photo.error != nil, " animalPhoto.fileInput.error")">
                </div>
                <div class="upload-progress" id="animalPhoto.upload.status" hidden>
                  <span>\(t.uploading)</span>
                  <progress id="animalPhoto.upload.progress" max="100" value="0"></progress>
                </div>
                <button type="submit" class="button secondary nojs-only" id="animalPhoto.uploadButton.tap">\
            \(t.uploadButton)</button>
              </form>
              <p class="hint" id="animalPhoto.pickerCancelled.text" role="status"\
            \(if: !photo.pickerCancelled, " hidden")>\(t.photoPickerCancelled)</p>

            """
        return """
            <section class="card" aria-labelledby="animalPhoto.title">
              <h1 id="animalPhoto.title">\(t.photoTitle)</h1>
              <p class="lead">\(t.photoBody)</p>
            \(card)\(if: photo.card == nil, upload)\
              <p class="error" id="animalPhoto.fileInput.error" role="alert"\(if: photo.error == nil, " hidden")>\
            \(photo.error ?? "")</p>
              <form autocomplete="off" method="post" action="/report/photo/continue?_csrf=\(page.csrf)" class="actions">
                <button type="submit" class="button primary" id="animalPhoto.continue">\(t.continueButton)</button>
              </form>
            </section>

            """
    }

    /// Step 2.
    static func details(_ page: PageView, _ details: DetailsView) -> HTML {
        let t = page.t
        let fields: HTML = """
                <div class="grid">
                  \(field(details.date))
                  <div class="field\(if: details.speciesInvalid, " invalid")">
                    <label for="animalDescription.speciesDropdown.tap">\(t.speciesLabel)</label>
                    <select id="animalDescription.speciesDropdown.tap" name="species" autocomplete="off" \
            aria-required="true" aria-invalid="\(details.speciesInvalid)"\
            \(if: details.speciesError != nil, " aria-describedby=\"animalDescription.speciesDropdown.error\"")>
                      <option value="">\(t.speciesPlaceholder)</option>
                      \(details.species.html { choice in
                          """
                          <option value="\(choice.value)" id="\(choice.id)"\(if: choice.selected, " selected")>\
                          \(choice.label)</option>
                          """
                      })
                    </select>
                    \(details.speciesError.html { """
            <p class="error" id="animalDescription.speciesDropdown.error">\($0)</p>
            """ })
                  </div>
                  \(field(details.race))
                  <fieldset class="field\(if: details.genderInvalid, " invalid")" id="animalDescription.gender"\
            \(if: details.genderError != nil, " aria-describedby=\"animalDescription.gender.error\"")>
                    <legend>\(t.genderLabel)</legend>
                    <div class="choices">
                      \(details.genders.html { choice in
                          """
                          <label class="choice" for="\(choice.id)"><input type="radio" autocomplete="off" \
                          name="gender" value="\(choice.value)" id="\(choice.id)"\(if: choice.selected, " checked") \
                          aria-invalid="\(details.genderInvalid)"><span>\(choice.label)</span></label>
                          """
                      })
                    </div>
                    \(details.genderError.html { "<p class=\"error\" id=\"animalDescription.gender.error\">\($0)</p>" })
                  </fieldset>
                  \(field(details.age))
                  \(field(details.chipNumber))
                  \(field(details.petName))
                </div>
                <fieldset class="location" id="location">
                  <legend>\(t.locationLegend)</legend>
                  <button type="submit" name="action" value="gps" class="button gps" \
            id="animalDescription.requestGPSButton.tap" data-busy="\(t.gpsLocating)">\(t.gpsButton)</button>
                  <div class="grid">
                    \(field(details.latitude))
                    \(field(details.longitude))
                  </div>
                  <p class="hint success" id="animalDescription.gpsHelperText" role="status" aria-live="polite"\
            \(if: details.gpsHelper == nil, " hidden")>\(details.gpsHelper ?? "")</p>
                  <p class="error" id="animalDescription.gpsErrorText" role="alert"\
            \(if: details.gpsError == nil, " hidden")>\(details.gpsError ?? "")</p>
                </fieldset>
                \(textArea(details.description))
            """
        return stepCard(
            page, prefix: "animalDescription", title: t.detailsTitle, lead: t.detailsBody, path: "/report/details",
            formID: "detailsForm", forward: ("continue", t.continueButton, "animalDescription.continueButton.tap"),
            fields: fields, after: alert(t, details.alert))
    }

    /// Step 3.
    static func contact(_ page: PageView, _ contact: ContactView) -> HTML {
        let t = page.t
        let fields: HTML = """
                <div class="grid">
                  \(field(contact.phone))
                  \(field(contact.email))
                  \(field(contact.reward))
                  \(field(contact.caregiverPhone))
                </div>
                \(textArea(contact.address))
            """
        return stepCard(
            page, prefix: "contactInformation", title: t.contactTitle, lead: t.contactBody, path: "/report/contact",
            formID: "contactForm", forward: ("submit", t.submitButton, "contactInformation.submitButton.tap"),
            fields: fields)
    }

    /// A step's card: its heading and lead, and its form (posted with the visit's token) holding, in order,
    /// the hidden default of Enter (`forward`), `fields`, then Back and the step's own button (`forward`);
    /// `after`, what follows the form in the card (the details' permission alert).
    static func stepCard(
        _ page: PageView, prefix: String, title: String, lead: String, path: String, formID: String,
        forward: (value: String, label: String, id: String), fields: HTML, after: HTML = ""
    ) -> HTML {
        """
        <section class="card" aria-labelledby="\(prefix).title">
          <h1 id="\(prefix).title">\(title)</h1>
          <p class="lead">\(lead)</p>
          <form autocomplete="off" method="post" action="\(path)?_csrf=\(page.csrf)" id="\(formID)" novalidate>
            <button type="submit" name="action" value="\(forward.value)" class="default-submit" tabindex="-1" \
        aria-hidden="true">\(forward.label)</button>
            \(fields)
            <div class="actions">
              <button type="submit" name="action" value="back" class="button secondary" \
        id="\(prefix).backButton.tap">\(page.t.backButton)</button>
              <button type="submit" name="action" value="\(forward.value)" class="button primary" \
        id="\(forward.id)">\(forward.label)</button>
            </div>
          </form>
          \(after)
        </section>

        """
    }

    /// A labelled input with its hint and error, tied together by ids.
    static func field(_ field: FieldView) -> HTML {
        """
        <div class="field\(if: field.invalid, " invalid")">
          <label for="\(field.id)">\(field.label)</label>
          <input id="\(field.id)" name="\(field.name)" type="\(field.type)" value="\(field.value)"\
        \(field.inputmode.html { " inputmode=\"\($0)\"" })\
        \(field.placeholder.html { " placeholder=\"\($0)\"" }) autocomplete="\(field.autocomplete ?? "off")"\
        \(field.maxlength.html { " maxlength=\"\($0)\"" })\(field.max.html { " max=\"\($0)\"" })\
        \(if: field.required, " aria-required=\"true\"") aria-invalid="\(field.invalid)"\
        \(field.describedBy.html { " aria-describedby=\"\($0)\"" })>
          \(field.hint.html { "<p class=\"hint\" id=\"\(field.hintID)\">\($0)</p>" })
          \(field.error.html { "<p class=\"error\" id=\"\(field.errorID)\">\($0)</p>" })
        </div>

        """
    }

    /// A labelled text area with its counter and error.
    static func textArea(_ field: FieldView) -> HTML {
        """
        <div class="field wide\(if: field.invalid, " invalid")">
          <label for="\(field.id)">\(field.label)</label>
          <textarea id="\(field.id)" name="\(field.name)" autocomplete="off" rows="3"\
        \(field.placeholder.html { " placeholder=\"\($0)\"" })\(field.maxlength.html { " maxlength=\"\($0)\"" }) \
        aria-invalid="\(field.invalid)"\(field.describedBy.html { " aria-describedby=\"\($0)\"" }) \
        data-counter="\(field.hintID)">\(field.value)</textarea>
          \(field.hint.html { """
            <p class="hint counter\(if: field.hintWarns, " warn")" id="\(field.hintID)" aria-live="polite" \
            data-left-format="\(field.counterLeftFormat ?? "")" \
            data-warn-within="\(String(PageBuilder.counterWarnWithin))">\($0)</p>
            """ })
          \(field.error.html { "<p class=\"error\" id=\"\(field.errorID)\">\($0)</p>" })
        </div>

        """
    }

    /// The location permission alert (open when the GPS button was refused). Cancel is the primary action
    /// and has the focus: closing it to type the coordinates is what a visitor can do; Go Settings can only
    /// say that the staff can change it.
    static func alert(_ t: KioskStrings, _ alert: AlertView) -> HTML {
        """
        <div class="modal-backdrop" id="permissionAlert"\(if: !alert.open, " hidden")>
          <div class="modal" role="alertdialog" aria-modal="true" aria-labelledby="permissionAlert.title" \
        aria-describedby="permissionAlert.message">
            <h2 id="permissionAlert.title">\(alert.title)</h2>
            <p id="permissionAlert.message">\(alert.message)</p>
            <div class="settings-help" id="permissionAlert.settingsHelp"\(if: !alert.settings, " hidden")>
              <h3>\(t.settingsTitle)</h3>
              <p id="permissionAlert.settingsHelp.text">\(t.settingsNotHere)</p>
            </div>
            <div class="modal-actions">
              <a class="button primary" href="/report/details" id="permissionAlert.cancelButton.tap"\
        \(if: alert.open, " autofocus")>\(t.alertCancel)</a>
              <a class="button secondary" href="/report/details?alert=settings" \
        id="permissionAlert.goSettingsButton.tap"\(if: alert.settings, " hidden")>\(t.alertGoSettings)</a>
            </div>
          </div>
        </div>

        """
    }
}
