import FoundationEssentials
import PetSpotPOSIX
import PetSpotReport

/// The draft photo of one found-pet report, kept in the user's cache
/// directory until the report is sent or abandoned.
///
/// Location: `$XDG_CACHE_HOME/PetSpot/ReportFoundPet/<draft uuid>/`, or
/// `~/.cache/...` when `XDG_CACHE_HOME` is unset, empty or relative (as
/// the XDG base directory specification says). The directory holds at
/// most one file, `photo.<ext>`. The directories the cache creates are
/// 0700 and the photo 0600, exactly, whatever the process's umask: a
/// draft holds a stranger's photo.
///
/// Photos are accepted by content (``PhotoSniffer``), never by file name,
/// and cleaned before they are written (`PhotoCleaner`, SPEC §7 "Photos
/// leave without metadata"): what is cached, and later sent, has no EXIF,
/// XMP, comments or thumbnails, is upright, and a HEIC is a JPEG. Storing a
/// photo when one is already cached deletes the previous file first;
/// ``clear()`` removes the whole draft directory.
public struct PhotoDraftCache: Sendable {
    /// Largest photo accepted, in bytes (default 25 MiB).
    public var maximumBytes: Int
    /// Free space that must remain after writing, in bytes (default 20 MiB).
    public var minimumFreeBytes: Int64
    /// Largest photo accepted, in pixels (width × height; default
    /// `PhotoCleaner.defaultMaximumPixels`, 50 megapixels), checked before
    /// anything is decoded.
    public var maximumPixels: Int
    /// The draft's identifier.
    public let draftID: UUID
    /// The draft's directory.
    public let directory: URL

    /// Creates the cache of one draft. Nothing is written until ``store(contentsOf:)``.
    /// - Parameters:
    ///   - draftID: the draft's identifier (a new one by default).
    ///   - environment: where `XDG_CACHE_HOME` and `HOME` are read (the process's by default).
    ///   - maximumBytes: largest photo accepted.
    ///   - minimumFreeBytes: free space that must remain after writing.
    ///   - maximumPixels: largest photo accepted, in pixels.
    public init(
        draftID: UUID = UUID(), environment: [String: String] = ProcessInfo.processInfo.environment,
        maximumBytes: Int = 25 << 20, minimumFreeBytes: Int64 = 20 << 20,
        maximumPixels: Int = PhotoCleaner.defaultMaximumPixels
    ) {
        self.draftID = draftID
        self.maximumBytes = maximumBytes
        self.minimumFreeBytes = minimumFreeBytes
        self.maximumPixels = maximumPixels
        self.directory = Self.baseDirectory(environment: environment)
            .appendingPathComponent("PetSpot", isDirectory: true)
            .appendingPathComponent("ReportFoundPet", isDirectory: true)
            .appendingPathComponent(draftID.uuidString.lowercased(), isDirectory: true)
    }

    /// The user's cache directory: `$XDG_CACHE_HOME` when absolute, else `$HOME/.cache`.
    public static func baseDirectory(environment: [String: String]) -> URL {
        if let xdg = environment["XDG_CACHE_HOME"], xdg.hasPrefix("/") {
            return URL(fileURLWithPath: xdg, isDirectory: true)
        }
        let home =
            environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".cache", isDirectory: true)
    }

    /// Checks a photo without caching it.
    /// - Throws: ``PhotoDraftError`` `.empty`, `.tooLarge` or `.unsupportedFormat`.
    public func inspect(_ data: Data) throws(PhotoDraftError) -> PhotoInfo {
        guard !data.isEmpty else { throw .empty }
        guard data.count <= maximumBytes else { throw .tooLarge(limit: maximumBytes) }
        guard let info = PhotoSniffer.inspect([UInt8](data)) else { throw .unsupportedFormat }
        return info
    }

    /// Reads, checks and caches the photo at `source`, replacing any cached one.
    /// - Throws: ``PhotoDraftError``; after a failure no photo is cached.
    @discardableResult
    public func store(contentsOf source: URL) throws(PhotoDraftError) -> PhotoDraft {
        let size: Int
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: source.path)
            guard (attributes[.type] as? FileAttributeType) != .typeDirectory else {
                throw PhotoDraftError.readFailed("\(source.path) is a directory")
            }
            size = Int(clamping: Self.number(attributes[.size]) ?? 0)
        } catch let error as PhotoDraftError {
            throw error
        } catch {
            throw .readFailed("\(source.path): no such file or not readable")
        }
        guard size > 0 else { throw .empty }
        guard size <= maximumBytes else { throw .tooLarge(limit: maximumBytes) }
        let data: Data
        do {
            data = try Data(contentsOf: source)
        } catch {
            throw .readFailed("\(source.path): \(ErrorText.describe(error))")
        }
        return try store(data)
    }

    /// Checks, cleans and caches `data`, replacing any cached photo.
    ///
    /// Order: check the content; clean it (metadata removed, upright, HEIC
    /// as JPEG); delete the previous photo; check free space; write
    /// `photo.<ext>` atomically (the extension of the cleaned format). The
    /// draft's ``PhotoDraft/info`` and ``PhotoDraft/byteCount`` describe the
    /// cleaned photo, which must also fit ``maximumBytes``.
    /// - Throws: ``PhotoDraftError``; after a failure no photo is cached.
    @discardableResult
    public func store(_ data: Data) throws(PhotoDraftError) -> PhotoDraft {
        let (bytes, info) = try clean(data)
        try removePhotos()
        do {
            try AtomicFile.makeDirectory(directory.path, mode: 0o700)
        } catch {
            throw .writeFailed("cannot create \(directory.path): \(error)")
        }
        if let available = freeBytes(), available - Int64(bytes.count) < minimumFreeBytes {
            throw .lowDiskSpace(available: available)
        }
        let file = directory.appendingPathComponent("photo.\(info.format.fileExtension)")
        do {
            // A draft need not survive a power loss: written whole or not at all, not fsynced.
            try AtomicFile.write(bytes, to: file.path, mode: 0o600, durable: false)
        } catch {
            throw .writeFailed("cannot write \(file.path): \(error)")
        }
        return PhotoDraft(file: file, info: info, byteCount: bytes.count)
    }

    /// `data` checked and cleaned (see ``store(_:)``).
    /// - Throws: ``PhotoDraftError``.
    private func clean(_ data: Data) throws(PhotoDraftError) -> (bytes: [UInt8], info: PhotoInfo) {
        let info = try inspect(data)
        let cleaned: CleanedPhoto
        do {
            cleaned = try PhotoCleaner.clean(
                [UInt8](data), format: info.format, width: info.width, height: info.height,
                maximumPixels: maximumPixels)
        } catch {
            switch error {
            case .tooManyPixels(_, _, let limit): throw .tooManyPixels(limit: limit)
            case .damaged(let detail): throw .damaged(detail)
            case .orientationNotApplicable: throw .rotationNotSupported
            }
        }
        guard cleaned.bytes.count <= maximumBytes else { throw .tooLarge(limit: maximumBytes) }
        let cleanedInfo = PhotoInfo(format: cleaned.format, width: cleaned.width, height: cleaned.height)
        return (cleaned.bytes, cleanedInfo)
    }

    /// The cached photo, if there is one (checked again by content).
    public func current() -> PhotoDraft? {
        for file in photoFiles() {
            guard let data = try? Data(contentsOf: file), !data.isEmpty,
                let info = PhotoSniffer.inspect([UInt8](data))
            else { continue }
            return PhotoDraft(file: file, info: info, byteCount: data.count)
        }
        return nil
    }

    /// Removes the cached photo and the draft's directory. Clearing an empty draft is fine.
    /// - Throws: ``PhotoDraftError/writeFailed(_:)`` when something cannot be removed.
    public func clear() throws(PhotoDraftError) {
        guard FileManager.default.fileExists(atPath: directory.path) else { return }
        do {
            try FileManager.default.removeItem(at: directory)
        } catch {
            throw .writeFailed("cannot remove \(directory.path): \(ErrorText.describe(error))")
        }
    }

    private func photoFiles() -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasPrefix("photo.") }.sorted().map { directory.appendingPathComponent($0) }
    }

    private func removePhotos() throws(PhotoDraftError) {
        for file in photoFiles() {
            do {
                try FileManager.default.removeItem(at: file)
            } catch {
                throw .writeFailed("cannot remove the previous photo \(file.path): \(ErrorText.describe(error))")
            }
        }
    }

    private func freeBytes() -> Int64? {
        let attributes = try? FileManager.default.attributesOfFileSystem(forPath: directory.path)
        return Self.number(attributes?[.systemFreeSize])
    }

    /// A file attribute's number (FoundationEssentials gives it as one integer type or another).
    private static func number(_ value: Any?) -> Int64? {
        switch value {
        case let value as Int: Int64(value)
        case let value as Int64: value
        case let value as UInt64: Int64(clamping: value)
        case let value as UInt: Int64(clamping: value)
        default: nil
        }
    }
}
