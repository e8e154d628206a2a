import FoundationEssentials

/// Where a finished found-pet report goes: a plain directory
/// (``FoundPetOutbox``) or the station's delivery queue (`PetSpotOutbox`).
public protocol FoundPetReportSink: Sendable {
    /// Saves `report` with a copy of its draft photo, durably.
    ///
    /// - Returns: what to tell the user after "Report saved: " (a file path,
    ///   or the report id in the delivery queue).
    /// - Throws: an error whose description is fit for the user; nothing
    ///   half-written is left behind.
    func save(_ report: FoundPetReport, photo: PhotoDraft) async throws -> String
}

extension FoundPetOutbox: FoundPetReportSink {
    /// Writes the report as a JSON + photo pair. - Returns: the JSON file's path.
    public func save(_ report: FoundPetReport, photo: PhotoDraft) async throws -> String {
        try write(report, photo: photo).path
    }
}
