/// A validation error of one field, with the message the form shows under it.
public struct FieldError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The field the message belongs to.
    public var field: ReportField
    /// The exact text shown to the user.
    public var message: String

    /// Creates an error for `field` with `message`.
    public init(_ field: ReportField, _ message: String) {
        self.field = field
        self.message = message
    }

    public var description: String { message }
}

/// The messages of the report forms.
///
/// The ones SPEC §7 gives are kept word for word; the others are written in
/// the same style.
public enum FieldMessages {
    /// The hard cap of the free-text fields (description, address): text
    /// beyond it is cut, with no error (seeds 003 and 004).
    public static let maximumTextLength = 500
    /// The limit on the pet's name.
    public static let maximumPetNameLength = 100
    /// The limit on the reward text.
    public static let maximumRewardLength = 200

    // From SPEC §7 and seed 004 (the found-pet flow), verbatim.
    public static let photoRequired = "Photo is mandatory"
    public static let latitudeRequired = "Fill in latitude"
    public static let longitudeRequired = "Fill in longitude"
    public static let phoneRequired = "Enter at least 7 digits"
    public static let phoneInvalid = "Enter at least 7 digits"
    public static let caregiverPhoneInvalid = "Enter at least 7 digits"
    public static let emailRequired = "Enter a valid email address"
    public static let emailInvalid = "Enter a valid email address"
    public static let speciesRequired = "Please select a species"
    public static let raceRequired = "Please enter the animal's breed/race"
    public static let genderRequired = "Please select a gender"
    public static let ageRange = "Age must be between 0 and 40"
    public static let latitudeRange = "Latitude must be between -90 and 90"
    public static let longitudeRange = "Longitude must be between -180 and 180"

    // Invented in the same style.
    public static let dateRequired = "Please select a date"
    public static let dateInvalid = "Please enter the date as YYYY-MM-DD"
    public static let dateInFuture = "The date cannot be in the future"
    public static let speciesUnknown = "Please select a species: \(Species.choices)"
    public static let genderUnknown = "Please select a gender: \(Gender.choices)"
    public static let ageWholeNumber = "Age must be a whole number"
    public static let latitudeNotNumber = "Latitude must be a number"
    public static let longitudeNotNumber = "Longitude must be a number"
    public static let petNameTooLong = "Pet name must be at most \(maximumPetNameLength) characters"
    public static let rewardTooLong = "Reward must be at most \(maximumRewardLength) characters"
}
