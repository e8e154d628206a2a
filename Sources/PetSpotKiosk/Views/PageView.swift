import PetSpotKioskConfiguration

/// Everything a page shows, as plain values: ``PageHTML`` holds no logic
/// beyond "show this part" and "repeat this", and tests can build these
/// directly.
public struct PageView: Sendable {
    public var t: KioskStrings
    public var title: String
    /// The visit's CSRF token, put into every form.
    public var csrf: String
    /// The path the language switch comes back to.
    public var path: String
    public var languages: [LanguageOption]
    public var step: StepView?
    public var toast: String?
    /// The toast's heading, before its text (the photo step's "Photo required").
    public var toastTitle: String?
    /// The toast's id: `reportFound.toast`, on the photo step `animalPhoto.toast` (seed 002).
    public var toastID = "reportFound.toast"
    /// Milliseconds after which the script hides the toast (seed 002's photo toast: 3 s); without
    /// JavaScript it simply stays.
    public var toastDismissAfter: Int?
    /// The id of the step's form that the language buttons submit (`form=` attribute): what was typed is
    /// saved, without being checked, and the same step comes back in the new language. `nil`: the
    /// buttons post to `/language` (nothing on the page to keep).
    public var languageForm: String?
    public var idle: IdleView?
    /// Whether "Cancel report" is offered.
    public var showCancel = false
    /// Larger text and higher contrast (the visit's choice, or the welcome page's `?display=large`).
    public var largeText = false
    public var welcome: WelcomeView?
    public var photo: PhotoView?
    public var details: DetailsView?
    public var contact: ContactView?
    public var thanks: ThanksView?
    public var stillThere: StillThereView?
    public var expired = false
    /// The language switch is a plain link to the welcome page in that
    /// language (`GET /?lang=pl`) instead of a POST: the page belongs to no
    /// visit (the welcome and "expired" pages).
    public var languageByLink = false
    /// Seconds after which a welcome page shown in a language other than
    /// the station's default goes back to it (for the next person).
    public var backToDefault: Refresh?

    public init(t: KioskStrings, title: String, csrf: String, path: String) {
        self.t = t
        self.title = title
        self.csrf = csrf
        self.path = path
        self.languages = KioskSettings.Language.allCases.map { language in
            LanguageOption(
                code: language.rawValue, label: KioskStrings.of(language).languageName,
                id: "languageSwitch.\(language.rawValue).tap", current: language.rawValue == t.language)
        }
    }
}

/// A page that goes to `/` by itself after ``after`` seconds.
public struct Refresh: Sendable {
    public var after: Int
}

public struct LanguageOption: Sendable {
    public var code: String
    public var label: String
    public var id: String
    public var current: Bool
}

/// "Step 2 of 3" and the three dots.
public struct StepView: Sendable {
    public var number: Int
    public var label: String
    public var dots: [StepDot]

    public init(number: Int, t: KioskStrings) {
        self.number = number
        self.label = t.stepFormat.filling(number)
        self.dots = (1...3).map { StepDot(number: $0, current: $0 == number, done: $0 < number) }
    }
}

public struct StepDot: Sendable {
    public var number: Int
    public var current: Bool
    public var done: Bool
}

/// The idle reset's timing for the page (whole seconds from when it was served).
public struct IdleView: Sendable {
    /// When the "Still there?" prompt appears.
    public var promptAfter: Int
    /// When the visit is wiped.
    public var resetAfter: Int
}

public struct WelcomeView: Sendable {
    public var privacy: String
    /// The language the visit starts in (the page's), sent with the start button.
    public var language: String
}

/// Step 1.
public struct PhotoView: Sendable {
    /// The confirmation card, when a photo is cached.
    public var card: PhotoCard?
    /// Why the photo is missing or was refused.
    public var error: String?
    /// A photo was refused or failed: the picker says "Try again".
    public var retry = false
    /// The picker was closed without a photo: the helper text is shown.
    public var pickerCancelled = false
    public var maximumBytes: Int
    /// `kiosk.photo_sources` has `camera`: the live view's buttons.
    public var camera = true
    /// `kiosk.photo_sources` has `file`: the file chooser (`animalPhoto.browse`).
    /// Without it the chooser exists only for browsers without JavaScript,
    /// which have no camera view either (a station always runs the script).
    public var file = false
}

public struct PhotoCard: Sendable {
    public var fileName: String
    public var size: String
    public var dimensions: String
    /// Whether browsers can show it (not HEIC).
    public var previewable: Bool
}

/// Step 2.
public struct DetailsView: Sendable {
    public var date: FieldView
    public var today: String
    public var species: [ChoiceView]
    public var speciesError: String?
    public var speciesInvalid: Bool
    public var race: FieldView
    public var genders: [ChoiceView]
    public var genderError: String?
    public var genderInvalid: Bool
    public var age: FieldView
    public var chipNumber: FieldView
    public var petName: FieldView
    public var latitude: FieldView
    public var longitude: FieldView
    public var description: FieldView
    public var gpsHelper: String?
    public var gpsError: String?
    public var alert: AlertView
}

/// A select option or a radio button.
public struct ChoiceView: Sendable {
    public var id: String
    public var value: String
    public var label: String
    public var selected: Bool
}

/// The permission alert (denied / restricted), in words for the public: no
/// account, uid, command or path (those go to the log and `/admin/status`).
public struct AlertView: Sendable {
    public var open: Bool
    public var settings: Bool
    public var title: String
    public var message: String
}

/// Step 3.
public struct ContactView: Sendable {
    public var phone: FieldView
    public var email: FieldView
    public var reward: FieldView
    public var caregiverPhone: FieldView
    public var address: FieldView
}

public struct ThanksView: Sendable {
    public var reference: String
    public var note: String
    public var restartAfter: Int
}

public struct StillThereView: Sendable {
    public var message: String
    public var resetAfter: Int
}

/// One labelled input with its error and hint, tied together by ids
/// (`aria-describedby`, `aria-invalid`).
public struct FieldView: Sendable {
    public var id: String
    public var name: String
    public var label: String
    public var value: String
    public var type = "text"
    public var inputmode: String?
    public var placeholder: String?
    public var autocomplete: String?
    public var maxlength: String?
    public var required = false
    public var hint: String?
    /// A counter near its cap: the hint is shown as a warning.
    public var hintWarns = false
    /// The counter's words near the cap, for the script (``KioskStrings/counterLeftFormat``).
    public var counterLeftFormat: String?
    public var error: String?
    /// `max` (the date picker's last day).
    public var max: String?
    /// Another element describing this control (the GPS helper under the coordinates).
    public var describedByExtra: String?

    public init(id: String, name: String, label: String, value: String, error: String?) {
        self.id = id
        self.name = name
        self.label = label
        self.value = value
        self.error = error
    }

    public var invalid: Bool { error != nil }

    /// Makes the hint a counter of `count` characters of `limit` (``PageBuilder/counter(_:limit:_:)``).
    public mutating func counter(_ count: Int, limit: Int, _ t: KioskStrings) {
        let counter = PageBuilder.counter(count, limit: limit, t)
        hint = counter.text
        hintWarns = counter.warns
        counterLeftFormat = t.counterLeftFormat
    }
    public var errorID: String { Self.errorID(id) }
    public var hintID: String { Self.hintID(id) }
    /// `aria-describedby`: the error and the hint, when shown.
    public var describedBy: String? {
        let ids = [error.map { _ in errorID }, hint.map { _ in hintID }, describedByExtra].compactMap { $0 }
        return ids.isEmpty ? nil : ids.joined(separator: " ")
    }

    /// The id of the error under control `id` (`….latitudeTextField.input` → `….latitudeTextField.error`).
    public static func errorID(_ id: String) -> String { replacingAction(of: id, with: "error") }
    /// The id of the hint under control `id`.
    public static func hintID(_ id: String) -> String { replacingAction(of: id, with: "hint") }

    static func replacingAction(of id: String, with suffix: String) -> String {
        guard let dot = id.lastIndex(of: ".") else { return "\(id).\(suffix)" }
        return "\(id[..<dot]).\(suffix)"
    }
}
