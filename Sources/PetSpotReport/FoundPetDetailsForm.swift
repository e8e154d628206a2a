/// Step 2 of the found-pet flow: the pet's details.
///
/// Date, species, gender, latitude and longitude are required; chip
/// number, race, age, pet name and description are optional.
public struct FoundPetDetailsForm: Sendable, Hashable {
    /// The description fields, with ``DescriptionForm/Requirements/foundPet``.
    public var description: DescriptionForm
    /// The chip number's digits (at most 15); see ``MicrochipFormatter``.
    public var chipNumber: String {
        didSet { chipNumber = MicrochipFormatter.digits(chipNumber) }
    }
    /// The pet's name, if its tag shows one.
    public var petName: String

    /// Creates an empty details step.
    public init(
        description: DescriptionForm = DescriptionForm(requirements: .foundPet), chipNumber: String = "",
        petName: String = ""
    ) {
        var description = description
        description.requirements = .foundPet
        self.description = description
        self.chipNumber = MicrochipFormatter.digits(chipNumber)
        self.petName = petName
    }

    /// The chip number as shown: `12345-67890-12345`.
    public var chipNumberDisplay: String { MicrochipFormatter.format(chipNumber) }

    /// The "Continue" pass: every error at once, in display order.
    public func validate(today: CalendarDate) -> [FieldError] {
        description.validate(today: today) + [FieldRules.petName(petName)].compactMap { $0 }
    }

    /// The checked values, or every error at once.
    public func validated(today: CalendarDate) -> Result<FoundPetDetails, ValidationErrors> {
        let errors = validate(today: today)
        guard errors.isEmpty, case .success(let checked) = description.validated(today: today),
            let latitude = checked.latitude, let longitude = checked.longitude
        else { return .failure(ValidationErrors(errors)) }
        let name = petName.trimmingWhitespace()
        return .success(
            FoundPetDetails(
                date: checked.date, species: checked.species, race: checked.race, gender: checked.gender,
                age: checked.age, latitude: latitude, longitude: longitude,
                chipNumber: chipNumber.isEmpty ? nil : chipNumber, petName: name.isEmpty ? nil : name,
                description: checked.description))
    }
}

/// The checked pet details of a found-pet report.
public struct FoundPetDetails: Sendable, Hashable, Codable {
    public var date: CalendarDate
    public var species: Species
    public var race: String?
    public var gender: Gender
    public var age: Int?
    public var latitude: Double
    public var longitude: Double
    /// Digits only, at most 15.
    public var chipNumber: String?
    public var petName: String?
    public var description: String?

    public init(
        date: CalendarDate, species: Species, race: String?, gender: Gender, age: Int?, latitude: Double,
        longitude: Double, chipNumber: String?, petName: String?, description: String?
    ) {
        self.date = date
        self.species = species
        self.race = race
        self.gender = gender
        self.age = age
        self.latitude = latitude
        self.longitude = longitude
        self.chipNumber = chipNumber
        self.petName = petName
        self.description = description
    }
}
