/// The state of the "animal description" step (SPEC §7), as a value.
///
/// Fields hold what the user typed or picked; nothing is validated on
/// assignment. ``validate(today:)`` is the single pass behind "Continue":
/// it returns every error at once, in field order. Changing ``species``
/// clears ``race``, as in the iOS form.
///
/// The same form serves the found-pet flow's details step with
/// ``Requirements/foundPet`` (race optional, coordinates required).
public struct DescriptionForm: Sendable, Hashable {
    /// Which fields are required: the two report kinds differ.
    public struct Requirements: Sendable, Hashable {
        /// Whether race/breed must be non-empty.
        public var raceRequired: Bool
        /// Whether latitude and longitude must be given.
        public var coordinatesRequired: Bool

        /// The missing-pet description step: race required, coordinates optional.
        public static let missingPet = Requirements(raceRequired: true, coordinatesRequired: false)
        /// The found-pet details step: race optional, coordinates required.
        public static let foundPet = Requirements(raceRequired: false, coordinatesRequired: true)
    }

    /// Which fields are required.
    public var requirements: Requirements
    /// Disappearance (or finding) date; required, not in the future.
    public var date: CalendarDate?
    /// Species; required. Setting a different one clears ``race``.
    public var species: Species? {
        didSet { if species != oldValue { race = "" } }
    }
    /// Race/breed as typed.
    public var race: String
    /// Gender; required.
    public var gender: Gender?
    /// Age in years as typed; optional whole number 0…40.
    public var ageText: String
    /// Latitude as typed (`.` or `,` decimal separator).
    public var latitudeText: String
    /// Longitude as typed (`.` or `,` decimal separator).
    public var longitudeText: String
    /// Additional description; hard capped at 500 characters with no error
    /// (seed 003): a longer text is cut on assignment.
    public var descriptionText: String {
        didSet {
            if descriptionText.count > FieldMessages.maximumTextLength {
                descriptionText = FieldRules.capText(descriptionText)
            }
        }
    }

    /// Creates an empty form (or one pre-filled with the given values).
    public init(
        requirements: Requirements = .missingPet, date: CalendarDate? = nil, species: Species? = nil,
        race: String = "", gender: Gender? = nil, ageText: String = "", latitudeText: String = "",
        longitudeText: String = "", descriptionText: String = ""
    ) {
        self.requirements = requirements
        self.date = date
        self.species = species
        self.race = race
        self.gender = gender
        self.ageText = ageText
        self.latitudeText = latitudeText
        self.longitudeText = longitudeText
        self.descriptionText = FieldRules.capText(descriptionText)
    }

    /// The error of one field, for showing it as the user leaves the field.
    public func error(for field: ReportField, today: CalendarDate) -> FieldError? {
        switch field {
        case .date: FieldRules.date(date, today: today)
        case .species: FieldRules.species(species)
        case .race: FieldRules.race(race, required: requirements.raceRequired)
        case .gender: FieldRules.gender(gender)
        case .age: FieldRules.age(ageText).failure
        case .latitude: FieldRules.latitude(latitudeText, required: requirements.coordinatesRequired).failure
        case .longitude: FieldRules.longitude(longitudeText, required: requirements.coordinatesRequired).failure
        default: nil
        }
    }

    /// The fields this form has, in display order.
    public static let fields: [ReportField] = [
        .date, .species, .race, .gender, .age, .latitude, .longitude, .description,
    ]

    /// The "Continue" pass: every field's error, in display order; empty when the step is valid.
    public func validate(today: CalendarDate) -> [FieldError] {
        Self.fields.compactMap { error(for: $0, today: today) }
    }

    /// The checked values, or every error at once.
    public func validated(today: CalendarDate) -> Result<PetDescription, ValidationErrors> {
        let errors = validate(today: today)
        guard errors.isEmpty, let date, let species, let gender,
            case .success(let age) = FieldRules.age(ageText),
            case .success(let latitude) = FieldRules.latitude(latitudeText, required: requirements.coordinatesRequired),
            case .success(let longitude) = FieldRules.longitude(
                longitudeText, required: requirements.coordinatesRequired)
        else { return .failure(ValidationErrors(errors)) }
        let trimmedRace = race.trimmingWhitespace()
        let trimmedDescription = descriptionText.trimmingWhitespace()
        return .success(
            PetDescription(
                date: date, species: species, race: trimmedRace.isEmpty ? nil : trimmedRace, gender: gender,
                age: age, latitude: latitude, longitude: longitude,
                description: trimmedDescription.isEmpty ? nil : trimmedDescription))
    }
}

/// The checked values of a ``DescriptionForm``: only
/// ``DescriptionForm/validated(today:)`` makes one.
public struct PetDescription: Sendable, Hashable, Codable {
    public var date: CalendarDate
    public var species: Species
    /// Trimmed; `nil` when not given.
    public var race: String?
    public var gender: Gender
    public var age: Int?
    public var latitude: Double?
    public var longitude: Double?
    /// Trimmed; `nil` when not given.
    public var description: String?
}

/// Every error of a "Continue" pass at once.
public struct ValidationErrors: Error, Sendable, Hashable, CustomStringConvertible {
    /// The errors in display order.
    public var errors: [FieldError]

    public init(_ errors: [FieldError]) { self.errors = errors }

    /// The message of `field`, if it has one.
    public func message(for field: ReportField) -> String? { errors.first { $0.field == field }?.message }

    public var description: String { errors.map(\.message).joined(separator: "\n") }
}

extension Result {
    /// The error of a failed result, else `nil`.
    package var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
