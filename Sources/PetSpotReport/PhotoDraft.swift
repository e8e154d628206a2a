import Foundation

/// A photo held in the draft cache.
public struct PhotoDraft: Sendable, Hashable {
    /// Where the cached copy lives.
    public var file: URL
    /// Format and pixel dimensions from the headers.
    public var info: PhotoInfo
    /// Size in bytes (above zero).
    public var byteCount: Int

    public init(file: URL, info: PhotoInfo, byteCount: Int) {
        self.file = file
        self.info = info
        self.byteCount = byteCount
    }
}
