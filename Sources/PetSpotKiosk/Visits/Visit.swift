import FoundationEssentials
import PetSpotKioskConfiguration
import PetSpotLocation
import PetSpotPhotoCleaning
import PetSpotReport

/// One person's visit to the kiosk: the found-pet flow they are filling in,
/// the photo draft, and what the next page should show once.
///
/// A visit lives only in the server's memory (``VisitStore``) and in its
/// draft directory; the browser holds nothing but the visit's unguessable id
/// in a cookie.
public struct Visit: Sendable {
    /// The cookie value: 256 random bits, base64url.
    public let id: String
    /// The token every POST of this visit must carry.
    public let csrfToken: String
    /// The page language.
    public var language: KioskSettings.Language
    /// The found-pet flow (SPEC §7).
    public var flow = FoundPetFlow()
    /// The date field as typed (`YYYY-MM-DD` from the date picker).
    public var dateText = ""
    /// Where the photo draft lives; cleared with the visit.
    public let drafts: PhotoDraftCache
    /// The photo's file name as the visitor's device gave it (for the confirmation card).
    public var photoFileName: String?
    /// The last time the visitor did something.
    public var lastActivity: ContinuousClock.Instant
    /// Shown once on the next page: errors of a Continue, a refused photo, a failed submit.
    public var notice: Notice?
    /// The answer of the last "Use this station's location", as the GPS action gave it (the one shape
    /// from the client to the page), kept while on the details step.
    public var gps: GPSFillOutcome?
    /// Whether the permission alert's "Go Settings" was tapped (the alert then says who can change it).
    public var gpsSettingsShown = false
    /// The phone fields with more digits than the rule allows, as typed: ``ContactForm`` cuts at the 11th
    /// digit on assignment, and the kiosk never cuts (SPEC §7), so the page shows these and Submit refuses
    /// them beside the field (``KioskStrings/phoneTooLong``).
    public var phonesAsTyped: [ReportField: String] = [:]
    /// The GPS button's bound: one daemon request at a time, a few per window.
    public var gpsTaps = GPSTapBudget()
    /// The reference of the report just submitted (the thank-you page), once.
    public var submittedReference: String?
    /// "Larger text and higher contrast", chosen by this visitor: it holds
    /// for the visit and ends with it (the next person starts with the standard display).
    public var largeText = false

    public init(
        id: String, csrfToken: String, language: KioskSettings.Language, drafts: PhotoDraftCache,
        now: ContinuousClock.Instant
    ) {
        self.id = id
        self.csrfToken = csrfToken
        self.language = language
        self.drafts = drafts
        self.lastActivity = now
    }

    /// Whether anything of the visitor's is held (a step past the first, input, a photo).
    public var hasContent: Bool {
        flow != FoundPetFlow() || !dateText.isEmpty || photoFileName != nil
    }

    /// Whether the visitor has done anything since the start: a photo (or a
    /// refused one), a step past the first, a field typed. Such a visit is
    /// never ended to make room for another (``VisitStore/open(language:)``).
    public var hasInput: Bool {
        var started = FoundPetFlow()
        started.details.description.date = flow.details.description.date
        return flow != started || photoFileName != nil
    }
}

/// What a page shows once, after a POST redirected to it.
public struct Notice: Sendable, Hashable {
    /// The toast above the form.
    public var toast: String?
    /// Inline errors, by field (PetSpotReport's English messages).
    public var errors: [FieldError] = []
    /// A message of the photo step (a refused file), already in the page language.
    public var photoProblem: String?
    /// The photo step's picker gave no file (seed 002's helper text).
    public var pickerCancelled = false

    public init(
        toast: String? = nil, errors: [FieldError] = [], photoProblem: String? = nil, pickerCancelled: Bool = false
    ) {
        self.toast = toast
        self.errors = errors
        self.photoProblem = photoProblem
        self.pickerCancelled = pickerCancelled
    }

    /// The message of `field`, if it has one.
    public func message(for field: ReportField) -> String? { errors.first { $0.field == field }?.message }
}
