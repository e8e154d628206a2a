import FoundationEssentials
import PetSpotReport

extension Outbox: FoundPetReportSink {
    /// Queues the report for delivery. - Returns: `<id> (queued for delivery)`.
    public func save(_ report: FoundPetReport, photo: PhotoDraft) async throws -> String {
        let id = try await enqueue(report: report, photo: photo)
        return "\(id.uuidString.lowercased()) (queued for delivery)"
    }
}
