import FoundationEssentials
import PetSpotPOSIX

/// The directory finished reports are written to, for a sender to pick up.
///
/// Each report is two files: the photo `<uuid>.<ext>` first, then
/// `<uuid>.json`, written atomically last, so a JSON file is only ever seen
/// with its photo beside it.
public struct FoundPetOutbox: Sendable {
    /// The outbox directory.
    public var directory: URL

    public init(directory: URL) { self.directory = directory }

    /// Why a report could not be written.
    public struct WriteError: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String
        public init(_ description: String) { self.description = description }
    }

    /// Writes `report` and copies the draft photo beside it.
    /// - Returns: the JSON file's URL.
    /// - Throws: ``WriteError``; a half-written report leaves no JSON file.
    @discardableResult
    public func write(_ report: FoundPetReport, photo: PhotoDraft) throws(WriteError) -> URL {
        let manager = FileManager.default
        let photoFile = directory.appendingPathComponent(report.photo.file)
        let jsonFile = directory.appendingPathComponent("\(report.id.uuidString.lowercased()).json")
        do {
            try manager.createDirectory(at: directory, withIntermediateDirectories: true)
            if manager.fileExists(atPath: photoFile.path) { try manager.removeItem(at: photoFile) }
            try manager.copyItem(at: photo.file, to: photoFile)
        } catch {
            throw WriteError("cannot copy the photo to \(photoFile.path): \(ErrorText.describe(error))")
        }
        do {
            try report.jsonData().write(to: jsonFile, options: .atomic)
        } catch {
            try? manager.removeItem(at: photoFile)
            throw WriteError("cannot write \(jsonFile.path): \(ErrorText.describe(error))")
        }
        return jsonFile
    }
}
