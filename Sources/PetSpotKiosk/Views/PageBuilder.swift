import FoundationEssentials
import PetSpotPOSIX
import PetSpotKioskConfiguration
import PetSpotLocation
import PetSpotReport

/// Builds each page's ``PageView`` from a visit.
public struct PageBuilder: Sendable {
    /// `kiosk.idle_reset`.
    public var idleReset: Duration
    /// How long the thank-you page stays before starting over, in seconds.
    public var thanksSeconds = 20

    /// `kiosk.photo_sources`.
    public var photoSources: [KioskSettings.PhotoSource]

    public init(idleReset: Duration, photoSources: [KioskSettings.PhotoSource] = [.camera]) {
        self.idleReset = idleReset
        self.photoSources = photoSources
    }

    /// Seconds before the reset at which "Still there?" appears: 20, or half the idle time when shorter.
    public var promptWindow: Int { max(1, min(20, Int(idleReset.components.seconds) / 2)) }

    func frame(_ visit: Visit, title: (KioskStrings) -> String, path: String, remaining: Duration?) -> PageView {
        let t = KioskStrings.of(visit.language)
        var page = PageView(t: t, title: title(t), csrf: visit.csrfToken, path: path)
        page.largeText = visit.largeText
        if let notice = visit.notice {
            if let toast = notice.toast, !toast.isEmpty {
                page.toast = t.translate(toast)
            } else if !notice.errors.isEmpty {
                page.toast = t.toastErrors
            }
        }
        if let remaining {
            let reset = max(1, Int(remaining.components.seconds))
            page.idle = IdleView(promptAfter: max(0, reset - promptWindow), resetAfter: reset)
        }
        return page
    }

    // MARK: Pages

    /// The welcome page, in `language`; `station` is the language a new visit starts in.
    ///
    /// It belongs to no visit (no token, nothing to expire); the start button
    /// sends the page's language. Shown in another language than the
    /// station's, it goes back to the station's after the idle time, for the
    /// next person.
    public func welcome(
        language: KioskSettings.Language, station: KioskSettings.Language, largeText: Bool = false
    ) -> PageView {
        let t = KioskStrings.of(language)
        var page = PageView(t: t, title: t.appTitle, csrf: "", path: "/")
        page.languageByLink = true
        page.largeText = largeText
        page.welcome = WelcomeView(
            privacy: t.privacyFormat.filling(Int(idleReset.components.seconds)), language: language.rawValue)
        if language != station || largeText {
            page.backToDefault = Refresh(after: max(1, Int(idleReset.components.seconds)))
        }
        return page
    }

    /// Step 1.
    public func photo(_ visit: Visit, remaining: Duration?) -> PageView {
        var page = frame(visit, title: \.photoTitle, path: "/report/photo", remaining: remaining)
        let t = page.t
        page.step = StepView(number: 1, t: t)
        page.showCancel = true
        page.toastID = "animalPhoto.toast"
        if visit.notice?.message(for: .photo) != nil {
            // Continue without a photo (seed 002): a toast that clears after 3 s, and the inline error.
            page.toastTitle = t.photoRequiredTitle
            page.toast = t.photoRequiredMessage
            page.toastDismissAfter = 3000
        }
        // A draft counts only while its file exists (seed 000).
        let card = visit.flow.attachment.draft.flatMap { draft in draft.isOnDisk ? draft : nil }.map { draft in
            PhotoCard(
                fileName: visit.photoFileName ?? "photo.\(draft.info.format.fileExtension)",
                size: Self.byteSize(draft.byteCount), dimensions: "\(draft.info.width) × \(draft.info.height) px",
                previewable: draft.info.format != .heic)
        }
        let error = visit.notice?.photoProblem ?? visit.notice?.message(for: .photo).map(t.translate)
        page.photo = PhotoView(
            card: card, error: error, retry: visit.notice?.photoProblem != nil,
            pickerCancelled: visit.notice?.pickerCancelled == true, maximumBytes: KioskLimits.photoBytes,
            camera: photoSources.contains(.camera), file: photoSources.contains(.file))
        // The language buttons submit the upload form: a file picked without JavaScript goes up with them.
        if card == nil { page.languageForm = "photoForm" }
        return page
    }

    /// Step 2.
    public func details(_ visit: Visit, remaining: Duration?, today: CalendarDate) -> PageView {
        var page = frame(visit, title: \.detailsTitle, path: "/report/details", remaining: remaining)
        let t = page.t
        page.step = StepView(number: 2, t: t)
        page.showCancel = true
        page.languageForm = "detailsForm"
        let form = visit.flow.details
        let description = form.description
        func error(_ field: ReportField) -> String? { visit.notice?.message(for: field).map(t.translate) }
        func field(_ id: String, _ name: String, _ label: String, _ value: String, _ report: ReportField) -> FieldView {
            FieldView(id: id, name: name, label: label, value: value, error: error(report))
        }
        var date = field("animalDescription.datePicker.tap", "date", t.dateLabel, visit.dateText, .date)
        date.type = "date"
        date.required = true
        date.max = today.description
        var race = field("animalDescription.raceTextField.input", "race", t.raceLabel, description.race, .race)
        race.placeholder = t.racePlaceholder
        race.maxlength = "100"
        var age = field("animalDescription.ageTextField.input", "age", t.ageLabel, description.ageText, .age)
        age.inputmode = "numeric"
        age.maxlength = "3"
        var chip = field(
            "animalDescription.chipNumberTextField.input", "chipNumber", t.chipLabel, form.chipNumberDisplay,
            .chipNumber)
        chip.inputmode = "numeric"
        chip.placeholder = t.chipPlaceholder
        chip.maxlength = "17"
        chip.autocomplete = "off"
        var petName = field(
            "animalDescription.petNameTextField.input", "petName", t.petNameLabel, form.petName, .petName)
        petName.maxlength = "100"
        var latitude = field(
            "animalDescription.latitudeTextField.input", "latitude", t.latitudeLabel, description.latitudeText,
            .latitude)
        latitude.inputmode = "decimal"
        latitude.placeholder = t.latitudePlaceholder
        latitude.required = true
        latitude.maxlength = "20"
        var longitude = field(
            "animalDescription.longitudeTextField.input", "longitude", t.longitudeLabel, description.longitudeText,
            .longitude)
        longitude.inputmode = "decimal"
        longitude.placeholder = t.longitudePlaceholder
        longitude.required = true
        longitude.maxlength = "20"
        var text = field(
            "animalDescription.descriptionTextArea.input", "description", t.descriptionLabel,
            description.descriptionText,
            .description)
        text.placeholder = t.descriptionPlaceholder
        text.maxlength = String(FieldMessages.maximumTextLength)
        text.hint = "\(description.descriptionText.count)/\(FieldMessages.maximumTextLength)"
        let speciesNames: [Species: String] = [
            .dog: t.speciesDog, .cat: t.speciesCat, .bird: t.speciesBird, .rabbit: t.speciesRabbit,
            .rodent: t.speciesRodent, .reptile: t.speciesReptile, .other: t.speciesOther,
        ]
        let species = Species.allCases.map {
            ChoiceView(
                id: "animalDescription.species.\($0.rawValue)", value: $0.rawValue,
                label: speciesNames[$0] ?? $0.rawValue,
                selected: description.species == $0)
        }
        let genders = Gender.allCases.map {
            ChoiceView(
                id: $0 == .male ? "animalDescription.genderMale.tap" : "animalDescription.genderFemale.tap",
                value: $0.rawValue, label: $0 == .male ? t.genderMale : t.genderFemale,
                selected: description.gender == $0)
        }
        var gpsHelper: String?
        var gpsError: String?
        var alert = AlertView(open: false, settings: false, title: "", message: "")
        switch visit.gps {
        case .filled(let accuracy, let horizontalAccuracy):
            gpsHelper = Self.gpsHelper(t, accuracy: accuracy, horizontalAccuracy: horizontalAccuracy)
        case .alert(let permission, let settings):
            alert = Self.alert(t, permission, settings: settings)
        case .failed(let failure):
            gpsError = Self.gpsMessage(t, failure)
        case nil:
            break
        }
        if gpsHelper != nil {
            latitude.describedByExtra = "animalDescription.gpsHelperText"
            longitude.describedByExtra = "animalDescription.gpsHelperText"
        } else if gpsError != nil {
            latitude.describedByExtra = "animalDescription.gpsErrorText"
            longitude.describedByExtra = "animalDescription.gpsErrorText"
        }
        page.details = DetailsView(
            date: date, today: today.description, species: species, speciesError: error(.species),
            speciesInvalid: error(.species) != nil, race: race, genders: genders, genderError: error(.gender),
            genderInvalid: error(.gender) != nil, age: age, chipNumber: chip, petName: petName, latitude: latitude,
            longitude: longitude, description: text,
            gpsHelper: gpsHelper, gpsError: gpsError, alert: alert)
        return page
    }

    /// Step 3.
    public func contact(_ visit: Visit, remaining: Duration?) -> PageView {
        var page = frame(visit, title: \.contactTitle, path: "/report/contact", remaining: remaining)
        let t = page.t
        page.step = StepView(number: 3, t: t)
        page.showCancel = true
        page.languageForm = "contactForm"
        let form = visit.flow.contact
        func field(_ id: String, _ name: String, _ label: String, _ value: String, _ report: ReportField) -> FieldView {
            FieldView(
                id: id, name: name, label: label, value: value,
                error: visit.notice?.message(for: report).map(t.translate))
        }
        var phone = field("contactInformation.phoneTextField.input", "phone", t.phoneLabel, form.phone, .phone)
        phone.type = "tel"
        phone.inputmode = "tel"
        phone.placeholder = t.phonePlaceholder
        phone.autocomplete = "off"
        phone.required = true
        phone.maxlength = "30"
        var email = field("contactInformation.emailTextField.input", "email", t.emailLabel, form.email, .email)
        email.type = "email"
        email.inputmode = "email"
        email.placeholder = t.emailPlaceholder
        email.autocomplete = "off"
        email.required = true
        email.maxlength = "254"
        var reward = field("contactInformation.rewardTextField.input", "reward", t.rewardLabel, form.reward, .reward)
        reward.maxlength = String(FieldMessages.maximumRewardLength)
        var caregiver = field(
            "contactInformation.caregiverPhoneTextField.input", "caregiverPhone", t.caregiverPhoneLabel,
            form.caregiverPhone, .caregiverPhone)
        caregiver.type = "tel"
        caregiver.inputmode = "tel"
        caregiver.placeholder = t.phonePlaceholder
        caregiver.autocomplete = "off"
        caregiver.maxlength = "30"
        var address = field(
            "contactInformation.addressTextArea.input", "address", t.addressLabel, form.address, .address)
        address.placeholder = t.addressPlaceholder
        address.maxlength = String(FieldMessages.maximumTextLength)
        address.hint = "\(form.address.count)/\(FieldMessages.maximumTextLength)"
        page.contact = ContactView(
            phone: phone, email: email, reward: reward, caregiverPhone: caregiver, address: address)
        return page
    }

    /// The thank-you page with the report's reference.
    public func thanks(_ visit: Visit, reference: String) -> PageView {
        var page = frame(visit, title: \.thanksTitle, path: "/report/thanks", remaining: nil)
        page.thanks = ThanksView(
            reference: reference, note: page.t.thanksNoteFormat.filling(thanksSeconds), restartAfter: thanksSeconds)
        return page
    }

    /// "Still there?" without JavaScript (the page a `<noscript>` refresh leads to).
    public func stillThere(_ visit: Visit, remaining: Duration) -> PageView {
        var page = frame(visit, title: \.stillThereTitle, path: "/still-there", remaining: nil)
        let seconds = max(1, Int(remaining.components.seconds))
        page.stillThere = StillThereView(message: page.t.stillThereFormat.filling(seconds), resetAfter: seconds + 2)
        return page
    }

    // MARK: Texts

    /// "GPS capture successful (accuracy ±15 m)", "approximate" for reduced accuracy.
    public static func gpsHelper(
        _ t: KioskStrings, accuracy: AccuracyAuthorization, horizontalAccuracy: Double?
    ) -> String {
        var details: [String] = []
        if let horizontalAccuracy {
            details.append(t.gpsAccuracyFormat.filling(["n": String(Int(horizontalAccuracy.rounded()))]))
        }
        if accuracy == .reduced { details.append(t.gpsApproximate) }
        return details.isEmpty ? t.gpsSuccess : "\(t.gpsSuccess) (\(details.joined(separator: ", ")))"
    }

    /// The message for a failed GPS fill.
    public static func gpsMessage(_ t: KioskStrings, _ failure: GPSFailure) -> String {
        guard let error = failure.error else { return t.gpsOutOfRange }
        switch error {
        case .locationUnknown: return t.gpsUnknown
        case .sourceUnavailable: return t.gpsSourceUnavailable
        case .daemonUnreachable: return t.gpsUnreachable
        case .promptUnavailable: return t.gpsPromptUnavailable
        case .tooManyClients: return t.gpsBusy
        default: return t.gpsOther
        }
    }

    /// The permission alert, in words for the public: the station cannot share its location; type the
    /// coordinates or ask staff. The account, uid and the administrator's command never reach a visitor's
    /// page (``LocationRefusal`` takes them to the log and `/admin/status`).
    public static func alert(_ t: KioskStrings, _ permission: PermissionAlert, settings: Bool) -> AlertView {
        let restricted = permission.status == .restricted
        return AlertView(
            open: true, settings: settings, title: restricted ? t.restrictedTitle : t.deniedTitle,
            message: restricted ? t.restrictedMessage : t.deniedMessage)
    }

    /// "840 KB", "2.4 MB".
    public static func byteSize(_ bytes: Int) -> String {
        if bytes < 1_048_576 { return "\(max(1, Int((Double(bytes) / 1024).rounded()))) KB" }
        return String(cFormat: "%.1f MB", Double(bytes) / 1_048_576)
    }
}
