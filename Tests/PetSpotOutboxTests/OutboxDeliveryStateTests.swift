import DeliveryTestSupport
import Foundation
import PetSpotOutbox
import PetSpotReport
import Testing
import TestSupport

@Suite("Outbox: delivery states, retention, operator actions")
struct OutboxDeliveryStateTests {
    let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    /// Three reports created a minute apart, queued newest first.
    func threeReports(_ work: OutboxWorkspace, _ outbox: Outbox) async throws -> [String] {
        let reports = (0..<3).map { work.report(createdAt: t0.addingTimeInterval(Double($0) * 60)) }
        for report in reports.reversed() {
            try await outbox.enqueue(report: report, photoFile: work.photoPath, enqueuedAt: t0)
        }
        return reports.map { $0.id.uuidString.lowercased() }
    }

    @Test func oldestFirstAndEachClaimedOnce() async throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        let outbox = try work.open()
        let ids = try await threeReports(work, outbox)
        var claimed: [String] = []
        while let report = try await outbox.claimNext(now: t0) {
            claimed.append(report.id.uuidString.lowercased())
            #expect(report.attempt == 1)
            #expect(report.photoMimeType == "image/png")
            #expect(FileManager.default.contents(atPath: report.photoPath) == Data(work.photoBytes))
        }
        #expect(claimed == ids)
        #expect(try await outbox.summary().delivering == 3)
        // A sender killed mid-upload: the next one releases them, due at once.
        #expect(try await outbox.releaseInFlight(now: t0) == 3)
        #expect(try await outbox.claimNext(now: t0)?.attempt == 2)
    }

    @Test func verdictsAreRecorded() async throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        let outbox = try work.open()
        let ids = try await threeReports(work, outbox)
        let uuids = ids.map { UUID(uuidString: $0)! }
        _ = try await outbox.claimNext(now: t0)
        try await outbox.markRejected(uuids[0], status: 400, error: "HTTP 400: bad", at: t0)
        // A rejected report never blocks the next one.
        let second = try #require(try await outbox.claimNext(now: t0))
        #expect(second.id == uuids[1])
        try await outbox.markRetry(uuids[1], status: 503, error: "HTTP 503", next: t0.addingTimeInterval(30))
        let third = try #require(try await outbox.claimNext(now: t0))
        #expect(third.id == uuids[2])
        try await outbox.markDelivered(uuids[2], status: 201, reference: "srv-9", note: nil, at: t0)
        // The retried one is not due before its time.
        #expect(try await outbox.claimNext(now: t0.addingTimeInterval(29)) == nil)
        #expect(try await outbox.nextDue() == t0.addingTimeInterval(30))

        let entries = Dictionary(uniqueKeysWithValues: try await outbox.entries().map { ($0.id, $0) })
        #expect(entries[ids[0]]?.state == .rejected && entries[ids[0]]?.lastStatus == 400)
        #expect(entries[ids[0]]?.lastError == "HTTP 400: bad" && entries[ids[0]]?.rejectedAt == t0)
        #expect(entries[ids[1]]?.state == .pending && entries[ids[1]]?.attempts == 1)
        #expect(entries[ids[1]]?.nextAttemptAt == t0.addingTimeInterval(30))
        #expect(entries[ids[2]]?.state == .delivered && entries[ids[2]]?.backendReference == "srv-9")
        // FR-016: the caregiver phone and address are gone once delivered; the rest stays until retention.
        let delivered = try #require(try await outbox.stored(ids[2]))
        #expect(delivered.stationOnly == nil && delivered.announcement != nil && delivered.photoFile != nil)
        #expect(try await outbox.stored(ids[0])?.stationOnly != nil)

        let summary = try await outbox.summary()
        #expect(summary.pending == 1 && summary.rejected == 1 && summary.delivered == 1 && summary.delivering == 0)
        #expect(summary.oldestUndeliveredAt == t0.addingTimeInterval(60))
        #expect(summary.lastDeliveredAt == t0)
        #expect(summary.lastFailureStatus != nil)
        #expect(try await outbox.undeliveredCount() == 1)
    }

    @Test func retentionDeletesPhotoAndPersonalDataOfDeliveredReportsOnly() async throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        let outbox = try work.open()
        let ids = try await threeReports(work, outbox)
        let first = try #require(try await outbox.claimNext(now: t0))
        try await outbox.markDelivered(first.id, status: 201, reference: "srv-1", note: nil, at: t0)
        let second = try #require(try await outbox.claimNext(now: t0))
        try await outbox.markRejected(second.id, status: 422, error: "HTTP 422", at: t0)

        let week = 7 * 86_400.0
        #expect(try await outbox.purgeDelivered(before: t0.addingTimeInterval(-1), now: t0) == 0)
        #expect(
            try await outbox.purgeDelivered(before: t0.addingTimeInterval(1), now: t0.addingTimeInterval(week)) == 1)
        let purged = try #require(try await outbox.stored(ids[0]))
        #expect(purged.announcement == nil && purged.stationOnly == nil && purged.photoFile == nil)
        #expect(!work.photos().contains("\(ids[0]).png"))
        #expect(work.photos().count == 2)
        let entry = try await outbox.entry(ids[0])
        #expect(entry.backendReference == "srv-1" && entry.purgedAt == t0.addingTimeInterval(week))
        #expect(entry.createdAt == t0 && entry.deliveredAt == t0)
        #expect(try await outbox.summary().purged == 1)
        // Nothing more to purge.
        #expect(try await outbox.purgeDelivered(before: t0.addingTimeInterval(1), now: t0) == 0)
    }

    /// SPEC §7 "Nothing personal outlives its purpose on disk" (issue 29
    /// item 6): after the retention purge no personal field is in the
    /// database file, its WAL or its shared memory, read as raw bytes while
    /// the outbox is open (the kiosk running).
    @Test func afterThePurgeNoPersonalFieldIsInAnyDatabaseFile() async throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        let outbox = try work.open()
        try await outbox.enqueue(report: work.report(createdAt: t0), photoFile: work.photoPath, enqueuedAt: t0)
        let fields = ReportFixtures.personalFields
        // Queued: each field is somewhere in the three files.
        #expect(OutboxFileScan.present(fields, inOutbox: work.directory) == Set(fields))
        let claimed = try #require(try await outbox.claimNext(now: t0))
        try await outbox.markDelivered(claimed.id, status: 201, reference: "srv-1", note: nil, at: t0)
        #expect(try await outbox.purgeDelivered(before: t0.addingTimeInterval(1), now: t0) == 1)
        let left = OutboxFileScan.find(fields, inOutbox: work.directory)
        #expect(left.isEmpty, "after the purge: \(left) (\(OutboxFileScan.sizes(inOutbox: work.directory)))")
        // The row is still there, only its personal data is gone.
        #expect(try await outbox.entry(claimed.id.uuidString.lowercased()).backendReference == "srv-1")
    }

    /// A discarded report's personal data leaves the files too.
    @Test func aDiscardedReportIsInNoDatabaseFile() async throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        let outbox = try work.open()
        let report = work.report(createdAt: t0)
        try await outbox.enqueue(report: report, photoFile: work.photoPath, enqueuedAt: t0)
        try await outbox.discard(report.id.uuidString.lowercased())
        let left = OutboxFileScan.find(ReportFixtures.personalFields, inOutbox: work.directory)
        #expect(left.isEmpty, "after the discard: \(left) (\(OutboxFileScan.sizes(inOutbox: work.directory)))")
    }

    @Test func retryAndDiscardByIdOrPrefix() async throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        let outbox = try work.open()
        let ids = try await threeReports(work, outbox)
        let first = try #require(try await outbox.claimNext(now: t0))
        try await outbox.markRejected(first.id, status: 400, error: "HTTP 400", at: t0)

        let retried = try await outbox.retry(String(ids[0].prefix(8)), now: t0.addingTimeInterval(5))
        #expect(
            retried.state == .pending && retried.nextAttemptAt == t0.addingTimeInterval(5) && retried.rejectedAt == nil)
        #expect(try await outbox.claimNext(now: t0.addingTimeInterval(5))?.id == first.id)
        await #expect(
            throws: OutboxError.notAllowed("report \(ids[0]) is being delivered right now; try again in a moment")
        ) {
            try await outbox.discard(ids[0])
        }
        try await outbox.markDelivered(first.id, status: 201, reference: nil, note: nil, at: t0)
        await #expect(throws: OutboxError.notAllowed("report \(ids[0]) is already delivered")) {
            try await outbox.retry(ids[0])
        }

        try await outbox.discard(ids[1])
        #expect(try await outbox.entries().map(\.id) == [ids[0], ids[2]])
        #expect(!work.photos().contains("\(ids[1]).png"))
        await #expect(throws: OutboxError.notFound(ids[1])) { try await outbox.retry(ids[1]) }
        await #expect(throws: OutboxError.notFound("zz")) { try await outbox.discard("zz") }
        await #expect(throws: OutboxError.self) { try await outbox.discard("") }
    }

    @Test func oneSenderAtATime() throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        _ = try work.open()
        let lock = try #require(try OutboxSenderLock.acquire(outboxDirectory: work.directory))
        #expect(try OutboxSenderLock.acquire(outboxDirectory: work.directory) == nil)
        #expect(OutboxSenderLock.holder(outboxDirectory: work.directory) == getpid())
        withExtendedLifetime(lock) {}
    }
}
