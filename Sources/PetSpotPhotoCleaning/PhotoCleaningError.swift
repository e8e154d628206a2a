import PetSpotReport

/// Why a photo could not be cleaned of its metadata.
public enum PhotoCleaningError: Error, Sendable, Hashable, CustomStringConvertible {
    /// More pixels than the cleaner decodes or transforms (`width` × `height` above `limit`).
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// The file is damaged or malformed: a structure runs past the end, a
    /// length lies, or the decoder refused it. The detail names what.
    case damaged(String)
    /// A PNG or WEBP marked with an EXIF orientation other than upright:
    /// turning its pixels would need a decoder and encoder for that format,
    /// which the cleaner does not carry, and dropping the mark would show it
    /// sideways.
    case orientationNotApplicable(PhotoFormat)

    /// What went wrong, for logs and tests.
    public var description: String {
        switch self {
        case .tooManyPixels(let width, let height, let limit):
            "the photo has \(width)×\(height) pixels, more than the \(limit) the cleaner accepts"
        case .damaged(let detail): "the photo is damaged: \(detail)"
        case .orientationNotApplicable(let format):
            "the \(format.rawValue.uppercased()) photo is marked as rotated, which only JPG and HEIC photos can be"
        }
    }
}
