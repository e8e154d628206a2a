import FoundationEssentials
import PetSpotKioskConfiguration
import PetSpotReport

/// Every text the kiosk shows, in one language. Templates read these by
/// name (`{{t.continueButton}}`); English is the default value of each
/// property and ``polish`` overrides them all.
///
/// Texts that the seeds give (seed 004's copy, the form's messages) are kept
/// word for word in English.
public struct KioskStrings: Sendable {
    public var language = "en"
    public var languageName = "English"

    // MARK: Frame
    public var appTitle = "PetSpot: report a found pet"
    public var stepFormat = "Step {n} of 3"
    public var continueButton = "Continue"
    public var backButton = "Back"
    public var cancelReport = "Cancel report"
    public var toastErrors = "Please correct the fields marked below"
    public var languageLabel = "Language"
    /// The display toggle (SPEC §7): larger text and higher contrast, for this visit.
    public var largeTextButton = "Larger text"
    public var requiredMark = "required"

    // MARK: Welcome
    public var welcomeTitle = "Found a pet?"
    public var welcomeBody =
        "Report it here in three short steps: a photo, what you know about the animal, and how the owner can reach you."
    public var startButton = "Report a found pet"
    public var stationBusy = "The station is busy right now. Please try again in a moment."
    public var privacyFormat =
        "This is a shared screen. Everything you enter is deleted when you submit or cancel, or after {n} seconds without activity."

    // MARK: Step 1: photo (seeds 002 and 004)
    public var photoTitle = "Add a photo"
    public var photoBody = "A recent photo is mandatory before you can continue."
    public var photoPick = "Tap to upload a photo"
    /// The picker's title after a photo was refused or failed (seed 002).
    public var photoTryAgain = "Try again"
    /// Shown when the picker was closed without a photo (seed 002).
    public var photoPickerCancelled = "Select a photo to continue – you can browse again anytime."
    /// The toast of Continue without a photo (seed 002): a title and a line.
    public var photoRequiredTitle = "Photo required"
    public var photoRequiredMessage = "Attach a JPG, PNG, HEIC, GIF or WEBP file before continuing."
    public var photoHint = "JPG, PNG, HEIC, GIF or WEBP up to 10 MB"
    public var uploadButton = "Upload photo"
    // The station's camera (SPEC §7): a live view, then the picture.
    public var cameraOpen = "Take a photo with the camera"
    public var cameraCapture = "Take the picture"
    public var cameraClose = "Close the camera"
    public var cameraViewLabel = "Camera view: hold the pet in front of the camera"
    public var cameraHint = "Hold the pet in front of the camera, then tap “Take the picture”."
    /// No camera on the station, or it is busy or broken.
    public var cameraMissing = "The camera is not working right now. Please ask staff for help."
    /// The browser refused the camera to this page.
    public var cameraRefused = "This station may not use its camera right now. Please ask staff for help."
    public var uploading = "Uploading…"
    public var photoAdded = "Photo added"
    public var photoFileName = "File name"
    public var photoSize = "Size"
    public var photoDimensions = "Dimensions"
    public var removeButton = "Remove"
    /// The station's own bound (SPEC §7): the phone app has none, so the message says why.
    public var photoTooLargeFormat =
        "The photo is too large: this station keeps photos of at most {n} MB until the report is sent"
    public var photoUnsupported = "Please choose a JPG, PNG, HEIC, GIF or WEBP photo"
    public var photoEmpty = "The photo file is empty"
    public var photoSaveFailed =
        "The photo could not be saved. Please try again, or tell the staff if it happens again."
    /// A full disk at the photo (SPEC §7: trying again cannot help, so the visitor is told to ask staff).
    public var photoStorageFull =
        "The station's storage is full, so the photo could not be kept. Please tell the staff."
    /// `{n}`: the station's bound in megapixels (SPEC §7).
    public var photoTooManyPixelsFormat = "The photo has too many pixels for this station (at most {n} megapixels)."
    public var photoDamaged = "The photo appears to be damaged and cannot be read. Please try another one."
    public var photoRotated =
        "This photo is marked as turned or mirrored and cannot be shown upright. Please choose a JPG or HEIC photo."
    public var photoPreviewAlt = "The photo you added"

    // MARK: Step 2: pet details (seeds 003, 004)
    public var detailsTitle = "Pet details"
    public var detailsBody = "Tell us what you know about the animal you found."
    public var dateLabel = "Date found"
    public var speciesLabel = "Animal species"
    public var speciesPlaceholder = "Select an option"
    public var speciesDog = "Dog"
    public var speciesCat = "Cat"
    public var speciesBird = "Bird"
    public var speciesRabbit = "Rabbit"
    public var speciesRodent = "Rodent"
    public var speciesReptile = "Reptile"
    public var speciesOther = "Other"
    public var raceLabel = "Animal race (optional)"
    public var racePlaceholder = "e.g., Golden Retriever"
    public var genderLabel = "Gender"
    public var genderMale = "Male"
    public var genderFemale = "Female"
    public var ageLabel = "Animal age (optional)"
    public var chipLabel = "Collar data (optional)"
    public var chipPlaceholder = "00000-00000-00000"
    public var petNameLabel = "Pet name (optional)"
    public var locationLegend = "Found location"
    public var gpsButton = "Use this station's location"
    public var gpsLocating = "Locating…"
    public var latitudeLabel = "Latitude"
    public var latitudePlaceholder = "e.g., 52.2297"
    public var longitudeLabel = "Longitude"
    public var longitudePlaceholder = "e.g., 21.0122"
    public var gpsSuccess = "GPS capture successful"
    public var gpsAccuracyFormat = "accuracy ±{n} m"
    public var gpsApproximate = "approximate"
    public var descriptionLabel = "Additional description (optional)"
    public var descriptionPlaceholder = "Any details that could help identify the pet..."
    /// A text area's counter near its cap (``PageBuilder/counterWarnWithin`` characters or fewer left):
    /// `{count}` typed, `{max}` the cap, `{n}` left.
    public var counterLeftFormat = "{count}/{max} – {n} characters left"

    // MARK: GPS failures
    // The English texts of a failure and of the alert's title are PetSpotReport's (`GPSFailure.message`,
    // `PermissionAlert.title`), shown through ``translate(_:)``; these are the kiosk's own.
    /// A failure without a message for the public (the console's names the protocol's reason).
    public var gpsOther = "Location is not available. Enter the coordinates by hand."

    // MARK: Permission alert
    /// The alert's text, for the public (the console's speaks to whoever runs it).
    public var deniedMessage =
        "This station cannot share its location. Please type the coordinates, or ask a member of staff."
    public var restrictedMessage =
        "This station cannot share its location. Please type the coordinates, or ask a member of staff."
    public var alertCancel = "Cancel"
    public var alertGoSettings = "Go Settings"
    public var settingsTitle = "Who can change this?"
    public var settingsNotHere =
        "Only the station's staff can change this, not on this screen. Please type the coordinates, or ask a member of staff for help."
    public var alertClose = "Close"

    // MARK: Step 3: contact (seed 004)
    public var contactTitle = "Contact information"
    public var contactBody = "Share your contact details so the pet's owner can reach you."
    public var phoneLabel = "Your phone number"
    public var phonePlaceholder = "+1 (555) 000-0000"
    public var emailLabel = "Your email"
    public var emailPlaceholder = "email@example.com"
    public var rewardLabel = "Reward (optional)"
    public var caregiverPhoneLabel = "Caregiver phone number (optional)"
    public var addressLabel = "Current physical address (optional)"
    public var addressPlaceholder = "Full address where the animal is currently located"
    public var submitButton = "Submit report"
    public var submitFailed = "The report could not be saved. Please try again, or tell the staff if it happens again."
    /// A full disk at submit: the outbox's own words (docs/KIOSK.md), what was typed stays.
    public var submitStorageFull =
        "The station's storage is full, so the report could not be saved. Please tell the staff."

    // MARK: Thank you
    public var thanksTitle = "Thank you!"
    public var thanksBody = "Your report has been saved and will be sent to PetSpot. Your reference number:"
    public var thanksNoteFormat = "Write it down or take a photo of it. This screen starts over in {n} seconds."
    public var startOver = "Start over"

    // MARK: Idle reset
    public var stillThereTitle = "Still there?"
    public var stillThereFormat = "To protect your data, this report will be cleared in {n} seconds."
    public var stillHere = "I'm still here"
    public var expiredTitle = "This page has expired"
    public var expiredBody = "Nothing of the previous report was kept. Please start again."

    // MARK: Field messages (PetSpotReport's English texts → this language)
    /// Translations of `FieldMessages` and `PhotoDraftError` texts; English keeps them as they are.
    public var messages: [String: String] = [:]

    public init() {}

    /// A phone number with more digits than the seed's rule allows (SPEC §7: refused beside the field, never
    /// cut); a kiosk message, translated like PetSpotReport's (``messages``).
    public static let phoneTooLong = "Enter at most \(FieldRules.phoneDigits.upperBound) digits"

    /// `message` (an English text from PetSpotReport) in this language.
    public func translate(_ message: String) -> String { messages[message] ?? message }

    /// The texts of `language`.
    public static func of(_ language: KioskSettings.Language) -> KioskStrings {
        switch language {
        case .en: english
        case .pl: polish
        }
    }

    public static let english = KioskStrings()
}

extension String {
    /// This text with each `{name}` replaced by its value.
    func filling(_ values: [String: String]) -> String {
        var text = self
        for (name, value) in values { text = text.replacing("{\(name)}", with: value) }
        return text
    }

    /// This text with `{n}` replaced by `n`.
    func filling(_ n: Int) -> String { filling(["n": String(n)]) }
}
