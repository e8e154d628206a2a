/// Why a photo could not be attached.
public enum PhotoDraftError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Not JPEG, PNG, HEIC, GIF or WEBP by content, or a header too damaged to read its size.
    case unsupportedFormat
    /// The file has no bytes.
    case empty
    /// Larger than the cache accepts (bytes).
    case tooLarge(limit: Int)
    /// The chosen file could not be read.
    case readFailed(String)
    /// The draft could not be written to (or removed from) the cache.
    case writeFailed(String)
    /// Too little free space left in the cache's file system (bytes available).
    case lowDiskSpace(available: Int64)
    /// More pixels than a photo may have (the limit, in pixels).
    case tooManyPixels(limit: Int)
    /// The photo's structure is damaged or its decoder refused it (what was
    /// wrong, for the log: never a path).
    case damaged(String)
    /// A PNG or WEBP marked as rotated (EXIF orientation), which cannot be
    /// turned upright here: a JPG or HEIC, or the picture saved upright, can.
    case rotationNotSupported

    /// The message the form shows.
    public var description: String {
        switch self {
        case .unsupportedFormat: "Please choose a JPG, PNG, HEIC, GIF or WEBP photo"
        case .empty: "The photo file is empty"
        case .tooLarge(let limit): "The photo is too large (at most \(limit / 1_048_576) MB)"
        case .readFailed(let detail): "The photo could not be read: \(detail)"
        case .writeFailed(let detail): "The photo could not be saved: \(detail)"
        case .lowDiskSpace: "There is not enough free disk space to keep the photo"
        case .tooManyPixels(let limit): "The photo has too many pixels (at most \(limit / 1_000_000) megapixels)"
        case .damaged: "The photo appears to be damaged and cannot be read"
        case .rotationNotSupported:
            "This PNG or WEBP photo is marked as turned or mirrored; please choose a JPG or HEIC photo, or save it upright first"
        }
    }
}
