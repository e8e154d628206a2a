import FoundationEssentials
import PetSpotPOSIX
import PetSpotKioskConfiguration
import PetSpotLocation
import PetSpotPhotoCleaning
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

    /// A step's page: the frame, "Step N of 3" and Cancel report; `languageForm`, the form the language
    /// buttons submit (what was entered goes with them).
    func step(
        _ number: Int, _ visit: Visit, title: (KioskStrings) -> String, path: String, remaining: Duration?,
        languageForm: String? = nil
    ) -> PageView {
        var page = frame(visit, title: title, path: path, remaining: remaining)
        page.step = StepView(number: number, t: page.t)
        page.showCancel = true
        page.languageForm = languageForm
        return page
    }

    /// A field of a step's form with the visit's error for `report`, in the page's language.
    static func field(
        _ visit: Visit, _ t: KioskStrings, _ id: String, _ name: String, _ label: String, _ value: String,
        _ report: ReportField
    ) -> FieldView {
        FieldView(
            id: id, name: name, label: label, value: value, error: visit.notice?.message(for: report).map(t.translate))
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
        var page = step(1, visit, title: \.photoTitle, path: "/report/photo", remaining: remaining)
        let t = page.t
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
        var page = step(
            2, visit, title: \.detailsTitle, path: "/report/details", remaining: remaining, languageForm: "detailsForm")
        let t = page.t
        let form = visit.flow.details
        let description = form.description
        func error(_ field: ReportField) -> String? { visit.notice?.message(for: field).map(t.translate) }
        func field(_ id: String, _ name: String, _ label: String, _ value: String, _ report: ReportField) -> FieldView {
            Self.field(visit, t, id, name, label, value, report)
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
        func coordinate(_ report: ReportField, _ label: String, _ placeholder: String, _ value: String) -> FieldView {
            var coordinate = field(
                "animalDescription.\(report.rawValue)TextField.input", report.rawValue, label, value, report)
            coordinate.inputmode = "decimal"
            coordinate.placeholder = placeholder
            coordinate.required = true
            coordinate.maxlength = "20"
            return coordinate
        }
        var latitude = coordinate(.latitude, t.latitudeLabel, t.latitudePlaceholder, description.latitudeText)
        var longitude = coordinate(.longitude, t.longitudeLabel, t.longitudePlaceholder, description.longitudeText)
        var text = field(
            "animalDescription.descriptionTextArea.input", "description", t.descriptionLabel,
            description.descriptionText,
            .description)
        text.placeholder = t.descriptionPlaceholder
        text.maxlength = String(FieldMessages.maximumTextLength)
        text.counter(description.descriptionText.count, limit: FieldMessages.maximumTextLength, t)
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
        let gps = Self.gps(visit.gps, settings: visit.gpsSettingsShown, t)
        if gps.helper != nil {
            latitude.describedByExtra = "animalDescription.gpsHelperText"
            longitude.describedByExtra = "animalDescription.gpsHelperText"
        } else if gps.error != nil {
            latitude.describedByExtra = "animalDescription.gpsErrorText"
            longitude.describedByExtra = "animalDescription.gpsErrorText"
        }
        page.details = DetailsView(
            date: date, today: today.description, species: species, speciesError: error(.species),
            speciesInvalid: error(.species) != nil, race: race, genders: genders, genderError: error(.gender),
            genderInvalid: error(.gender) != nil, age: age, chipNumber: chip, petName: petName, latitude: latitude,
            longitude: longitude, description: text,
            gpsHelper: gps.helper, gpsError: gps.error, alert: gps.alert)
        return page
    }

    /// Step 3.
    public func contact(_ visit: Visit, remaining: Duration?) -> PageView {
        var page = step(
            3, visit, title: \.contactTitle, path: "/report/contact", remaining: remaining, languageForm: "contactForm")
        let t = page.t
        let form = visit.flow.contact
        func field(_ id: String, _ name: String, _ label: String, _ value: String, _ report: ReportField) -> FieldView {
            Self.field(visit, t, id, name, label, value, report)
        }
        // A phone: the digit pad; a number past the rule's digits is shown as typed (never cut), with its error.
        func phoneField(_ report: ReportField, _ id: String, _ label: String, _ value: String) -> FieldView {
            var phone = field(id, report.rawValue, label, visit.phonesAsTyped[report] ?? value, report)
            phone.type = "tel"
            phone.inputmode = "tel"
            phone.placeholder = t.phonePlaceholder
            phone.autocomplete = "off"
            phone.maxlength = "30"
            return phone
        }
        var phone = phoneField(.phone, "contactInformation.phoneTextField.input", t.phoneLabel, form.phone)
        phone.required = true
        var email = field("contactInformation.emailTextField.input", "email", t.emailLabel, form.email, .email)
        email.type = "email"
        email.inputmode = "email"
        email.placeholder = t.emailPlaceholder
        email.autocomplete = "off"
        email.required = true
        email.maxlength = "254"
        var reward = field("contactInformation.rewardTextField.input", "reward", t.rewardLabel, form.reward, .reward)
        reward.maxlength = String(FieldMessages.maximumRewardLength)
        let caregiver = phoneField(
            .caregiverPhone, "contactInformation.caregiverPhoneTextField.input", t.caregiverPhoneLabel,
            form.caregiverPhone)
        var address = field(
            "contactInformation.addressTextArea.input", "address", t.addressLabel, form.address, .address)
        address.placeholder = t.addressPlaceholder
        address.maxlength = String(FieldMessages.maximumTextLength)
        address.counter(form.address.count, limit: FieldMessages.maximumTextLength, t)
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

    /// A text area's counter warns when this many characters or fewer are left.
    public static let counterWarnWithin = 50

    /// A text area's counter: "123/500", and near the cap "460/500 – 40 characters left"; whether it warns.
    public static func counter(_ count: Int, limit: Int, _ t: KioskStrings) -> (text: String, warns: Bool) {
        let left = max(0, limit - count)
        guard left <= counterWarnWithin else { return ("\(count)/\(limit)", false) }
        return (t.counterLeftFormat.filling(["count": String(count), "max": String(limit), "n": String(left)]), true)
    }

    /// "840 KB", "2.4 MB".
    public static func byteSize(_ bytes: Int) -> String {
        if bytes < 1_048_576 { return "\(max(1, Int((Double(bytes) / 1024).rounded()))) KB" }
        return String(cFormat: "%.1f MB", Double(bytes) / 1_048_576)
    }
}
