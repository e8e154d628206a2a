import PetSpotPhotoCleaning

/// The image formats a report photo may have (SPEC §7), recognised by content.
public enum PhotoFormat: String, Sendable, Hashable, Codable, CaseIterable {
    case jpeg, png, heic, gif, webp

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

extension PhotoFormat {
    /// The same format in the cleaner's terms.
    var cleanerFormat: PhotoCleaner.Format {
        switch self {
        case .jpeg: .jpeg
        case .png: .png
        case .heic: .heic
        case .gif: .gif
        case .webp: .webp
        }
    }

    /// The format the cleaner returned.
    init(_ format: PhotoCleaner.Format) {
        switch format {
        case .jpeg: self = .jpeg
        case .png: self = .png
        case .heic: self = .heic
        case .gif: self = .gif
        case .webp: self = .webp
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
