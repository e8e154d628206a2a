import Foundation

/// The draft photo of one found-pet report, kept in the user's cache
/// directory until the report is sent or abandoned.
///
/// Location: `$XDG_CACHE_HOME/PetSpot/ReportFoundPet/<draft uuid>/`, or
/// `~/.cache/...` when `XDG_CACHE_HOME` is unset, empty or relative (as
/// the XDG base directory specification says). The directory holds at
/// most one file, `photo.<ext>`.
///
/// Photos are accepted by content (``PhotoSniffer``), never by file name.
/// Storing a photo when one is already cached deletes the previous file
/// first; ``clear()`` removes the whole draft directory.
public struct PhotoDraftCache: Sendable {
    /// Largest photo accepted, in bytes (default 25 MiB).
    public var maximumBytes: Int
    /// Free space that must remain after writing, in bytes (default 20 MiB).
    public var minimumFreeBytes: Int64
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
    public init(
        draftID: UUID = UUID(), environment: [String: String] = ProcessInfo.processInfo.environment,
        maximumBytes: Int = 25 << 20, minimumFreeBytes: Int64 = 20 << 20
    ) {
        self.draftID = draftID
        self.maximumBytes = maximumBytes
        self.minimumFreeBytes = minimumFreeBytes
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
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
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
            size = (attributes[.size] as? NSNumber)?.intValue ?? 0
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
            throw .readFailed("\(source.path): \(error.localizedDescription)")
        }
        return try store(data)
    }

    /// Checks and caches `data`, replacing any cached photo.
    ///
    /// Order: check the content; delete the previous photo; check free space;
    /// write `photo.<ext>` atomically.
    /// - Throws: ``PhotoDraftError``; after a failure no photo is cached.
    @discardableResult
    public func store(_ data: Data) throws(PhotoDraftError) -> PhotoDraft {
        let info = try inspect(data)
        try removePhotos()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw .writeFailed("cannot create \(directory.path): \(error.localizedDescription)")
        }
        if let available = freeBytes(), available - Int64(data.count) < minimumFreeBytes {
            throw .lowDiskSpace(available: available)
        }
        let file = directory.appendingPathComponent("photo.\(info.format.fileExtension)")
        do {
            try data.write(to: file, options: .atomic)
        } catch {
            throw .writeFailed("cannot write \(file.path): \(error.localizedDescription)")
        }
        return PhotoDraft(file: file, info: info, byteCount: data.count)
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
            throw .writeFailed("cannot remove \(directory.path): \(error.localizedDescription)")
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
                throw .writeFailed("cannot remove the previous photo \(file.path): \(error.localizedDescription)")
            }
        }
    }

    private func freeBytes() -> Int64? {
        let attributes = try? FileManager.default.attributesOfFileSystem(forPath: directory.path)
        return (attributes?[.systemFreeSize] as? NSNumber)?.int64Value
    }
}
