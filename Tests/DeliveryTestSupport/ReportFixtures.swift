import Foundation
import PetSpotReport

/// Found-pet reports and photos for outbox and delivery tests.
public enum ReportFixtures {
    /// The station-only values every fixture report carries (FR-016: never sent).
    public static let caregiverPhone = "7654321"
    public static let address = "ul. Kwiatowa 7, Warszawa"
    /// Every personal value of ``report(id:createdAt:photoBytes:petName:caregiverPhone:address:)``
    /// (finder's contact, reward, caregiver's phone and address, chip number,
    /// description), as the outbox stores them: what the retention purge deletes.
    public static let personalFields = [
        "600123456", "finder@example.com", "50 PLN", caregiverPhone, address, "123456789012345", "Brown collar",
    ]

    /// A PNG signature and header, then an IDAT chunk of `extra`
    /// pseudo-random bytes (seeded) after CRLF and "--" runs that look like
    /// multipart syntax, then IEND. The chunk structure is sound, so the draft
    /// cache's metadata cleaning (which keeps IDAT as it is) accepts it.
    public static func photo(extra: Int = 4096, seed: UInt64 = 1) -> [UInt8] {
        func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8)
        bytes += be32(640) + be32(480) + [8, 2, 0, 0, 0] + [0, 0, 0, 0]
        let boundaryLike = Array("\r\n--petspot-\r\n\r\n--".utf8)
        bytes += be32(boundaryLike.count + extra) + Array("IDAT".utf8) + boundaryLike
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        for _ in 0..<extra {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes.append(UInt8(truncatingIfNeeded: state >> 56))
        }
        return bytes + [0, 0, 0, 0] + be32(0) + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
    }

    /// A complete report with every optional field given.
    public static func report(
        id: UUID = UUID(), createdAt: Date = Date(), photoBytes: Int, petName: String? = "Rex",
        caregiverPhone: String? = ReportFixtures.caregiverPhone, address: String? = ReportFixtures.address
    ) -> FoundPetReport {
        FoundPetReport(
            id: id, createdAt: createdAt,
            photo: FoundPetReport.Photo(
                file: "\(id.uuidString.lowercased()).png", format: .png, mimeType: "image/png", width: 640, height: 480,
                bytes: photoBytes),
            details: FoundPetDetails(
                date: CalendarDate(year: 2026, month: 1, day: 30)!, species: .dog, race: "Beagle", gender: .female,
                age: 3, latitude: 52.2297, longitude: 21.0122, chipNumber: "123456789012345", petName: petName,
                description: "Brown collar, \"friendly\" / shy"),
            contact: FoundPetContact(
                phone: "600123456", email: "finder@example.com", reward: "50 PLN", caregiverPhone: caregiverPhone,
                address: address))
    }

    /// Writes `bytes` to `directory/name`; returns the path.
    @discardableResult
    public static func write(_ bytes: [UInt8], to directory: String, name: String = "photo.png") throws -> String {
        let path = directory + "/" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }
}
