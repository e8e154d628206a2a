import FoundationEssentials

/// A photo held in the draft cache.
public struct PhotoDraft: Sendable, Hashable {
    /// Where the cached copy lives.
    public var file: URL
    /// Format and pixel dimensions from the headers.
    public var info: PhotoInfo
    /// Size in bytes (above zero).
    public var byteCount: Int

    /// Whether the cached file is still there. A draft counts only while it
    /// is (seed 000): a cleaner, a reboot or a full reset may have removed it.
    public var isOnDisk: Bool { FileManager.default.fileExists(atPath: file.path) }

    public init(file: URL, info: PhotoInfo, byteCount: Int) {
        self.file = file
        self.info = info
        self.byteCount = byteCount
    }
}
