import FoundationEssentials

/// What the PetSpot backend receives for a found-pet report: the
/// `announcement` part of `POST /announcements` (SPEC §8).
///
/// ```json
/// {"age": 3, "chipNumber": "123456789012345", "contact": {"email": "a@b.pl", "phone": "600123456"},
///  "createdAt": "2026-01-31T12:00:00Z", "date": "2026-01-30", "description": "Brown collar",
///  "gender": "female", "id": "…uuid…", "kind": "found", "latitude": 52.2297,
///  "longitude": 21.0122, "petName": "Rex", "race": "Beagle", "species": "dog"}
/// ```
///
/// Optional values that were not given are omitted. The caregiver phone and
/// the current address never appear (seed 004, FR-016): this type has no
/// place for them.
public struct FoundPetAnnouncement: Sendable, Hashable, Codable {
    /// The finder's contact as sent: no caregiver phone, no address.
    public struct Contact: Sendable, Hashable, Codable {
        public var phone: String
        public var email: String
        public var reward: String?
    }

    /// Always `found`.
    public var kind = "found"
    /// The report id, lowercase UUID (also the `Idempotency-Key`).
    public var id: String
    public var createdAt: Date
    public var date: CalendarDate
    public var species: Species
    public var race: String?
    public var gender: Gender
    public var age: Int?
    public var petName: String?
    public var chipNumber: String?
    public var latitude: Double
    public var longitude: Double
    public var description: String?
    public var contact: Contact

    /// The announcement of `report`.
    public init(_ report: FoundPetReport) {
        let details = report.details
        id = report.id.uuidString.lowercased()
        createdAt = report.createdAt
        date = details.date
        species = details.species
        race = details.race
        gender = details.gender
        age = details.age
        petName = details.petName
        chipNumber = details.chipNumber
        latitude = details.latitude
        longitude = details.longitude
        description = details.description
        contact = Contact(phone: report.contact.phone, email: report.contact.email, reward: report.contact.reward)
    }

    /// Compact JSON with sorted keys, dates as ISO 8601 UTC: the exact bytes sent.
    public func jsonData() throws -> Data {
        try ReportJSON.encode(self, pretty: false)
    }

    /// Decodes bytes written by ``jsonData()``.
    public static func decode(_ data: Data) throws -> FoundPetAnnouncement {
        try ReportJSON.decode(FoundPetAnnouncement.self, from: data)
    }
}

/// The parts of a found-pet report that stay on the station (seed 004,
/// FR-016) until the report is delivered.
public struct FoundPetStationOnlyData: Sendable, Hashable, Codable {
    public var caregiverPhone: String?
    public var address: String?

    public init(caregiverPhone: String?, address: String?) {
        self.caregiverPhone = caregiverPhone
        self.address = address
    }

    /// The station-only data of `report`, or `nil` when it has none.
    public init?(_ report: FoundPetReport) {
        guard report.contact.caregiverPhone != nil || report.contact.address != nil else { return nil }
        self.init(caregiverPhone: report.contact.caregiverPhone, address: report.contact.address)
    }
}
