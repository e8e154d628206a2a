/// The image formats a report photo may have (SPEC §7), recognised by
/// content (the report's `PhotoSniffer`), and the ones the cleaner handles.
///
/// The one format type of the package: the report's data types and its
/// outbox carry it (hence `Codable`, by its raw value), the cleaner takes
/// and returns it. The report module gives it its file extension and MIME type.
public enum PhotoFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case jpeg, png, heic, gif, webp
}
