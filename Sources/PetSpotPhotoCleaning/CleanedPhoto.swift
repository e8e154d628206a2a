import PetSpotReport

/// A photo after ``PhotoCleaner/clean(_:format:width:height:maximumPixels:)``:
/// its bytes and what they are.
public struct CleanedPhoto: Sendable, Hashable {
    /// The cleaned file's bytes.
    public var bytes: [UInt8]
    /// Their format: a HEIC becomes a JPEG, the others keep theirs.
    public var format: PhotoFormat
    /// Pixel width; a quarter turn swaps width and height.
    public var width: Int
    /// Pixel height.
    public var height: Int

    /// Creates a cleaned photo.
    /// - Parameters:
    ///   - bytes: the cleaned file's bytes.
    ///   - format: their format.
    ///   - width: pixel width.
    ///   - height: pixel height.
    public init(bytes: [UInt8], format: PhotoFormat, width: Int, height: Int) {
        self.bytes = bytes
        self.format = format
        self.width = width
        self.height = height
    }
}
