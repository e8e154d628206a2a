import FoundationEssentials

/// A finished found-pet report, as written to the outbox.
///
/// JSON (keys sorted, dates as `YYYY-MM-DD` / ISO 8601 UTC):
///
/// ```json
/// {
///   "contact": {"email": "a@b.pl", "phone": "600123456"},
///   "createdAt": "2026-01-31T12:00:00Z",
///   "details": {"date": "2026-01-30", "gender": "female", "latitude": 52.2297,
///               "longitude": 21.0122, "species": "dog", "chipNumber": "123456789012345"},
///   "id": "…uuid…",
///   "kind": "found",
///   "photo": {"bytes": 1234, "file": "…uuid….jpg", "format": "jpeg",
///             "height": 480, "mimeType": "image/jpeg", "width": 640},
///   "version": 1
/// }
/// ```
///
/// Optional values that were not given are omitted.
public struct FoundPetReport: Sendable, Hashable, Codable {
    /// The photo beside the JSON file.
    public struct Photo: Sendable, Hashable, Codable {
        /// File name, relative to the JSON file's directory.
        public var file: String
        public var format: PhotoFormat
        public var mimeType: String
        public var width: Int
        public var height: Int
        public var bytes: Int

        public init(file: String, format: PhotoFormat, mimeType: String, width: Int, height: Int, bytes: Int) {
            self.file = file
            self.format = format
            self.mimeType = mimeType
            self.width = width
            self.height = height
            self.bytes = bytes
        }
    }

    /// Format version of this JSON.
    public var version: Int = 1
    /// Always `found`.
    public var kind: String = "found"
    public var id: UUID
    public var createdAt: Date
    public var photo: Photo
    public var details: FoundPetDetails
    public var contact: FoundPetContact

    /// Creates a report; `createdAt` is truncated to whole seconds, as the JSON keeps it.
    public init(id: UUID, createdAt: Date, photo: Photo, details: FoundPetDetails, contact: FoundPetContact) {
        self.id = id
        self.createdAt = Date(timeIntervalSince1970: createdAt.timeIntervalSince1970.rounded(.down))
        self.photo = photo
        self.details = details
        self.contact = contact
    }

    /// The report as pretty-printed JSON with sorted keys.
    public func jsonData() throws -> Data {
        try ReportJSON.encode(self, pretty: true)
    }

    /// Decodes a report written by ``jsonData()``.
    public static func decode(_ data: Data) throws -> FoundPetReport {
        try ReportJSON.decode(FoundPetReport.self, from: data)
    }
}
