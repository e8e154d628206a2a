import PetSpotPhotoCleaning

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
