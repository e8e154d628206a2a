/// The image formats a report photo may have (SPEC §7), recognised by
/// content (the report's `PhotoSniffer`), and the ones the cleaner handles.
///
/// The one format type of the package: the report's data types and its
/// outbox carry it (hence `Codable`, by its raw value), the cleaner
/// (PetSpotPhotoCleaning, which depends on this module) takes and returns it.
public enum PhotoFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case jpeg, png, heic, gif, webp
}

extension PhotoFormat {
    /// The file extension the cache and the outbox use.
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .png: "png"
        case .heic: "heic"
        case .gif: "gif"
        case .webp: "webp"
        }
    }

    /// The media type.
    public var mimeType: String {
        switch self {
        case .jpeg: "image/jpeg"
        case .png: "image/png"
        case .heic: "image/heic"
        case .gif: "image/gif"
        case .webp: "image/webp"
        }
    }
}

/// What the headers of an accepted photo say.
public struct PhotoInfo: Sendable, Hashable, Codable {
    public var format: PhotoFormat
    /// Pixel width from the headers.
    public var width: Int
    /// Pixel height from the headers.
    public var height: Int

    public init(format: PhotoFormat, width: Int, height: Int) {
        self.format = format
        self.width = width
        self.height = height
    }
}
