import DeliveryTestSupport
import Foundation
import MetricsTestKit
import PetSpotOutbox
import PetSpotReport
import Testing
import TestSupport

/// The outbox's figures for the station's metrics file: counts by state and
/// the age of the oldest report still to deliver, read from the queue.
@Suite struct OutboxGaugesTests {
    @Test func countsByStateAndTheOldestUndeliveredAge() async throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        let outbox = try work.open()
        let metrics = TestMetrics()
        let now = Date(timeIntervalSince1970: 1_800_007_200)
        let gauges = OutboxGauges(outbox: outbox, factory: metrics, now: { now })
        func reports(_ state: String) throws -> Double? {
            try metrics.expectGauge("petspot_outbox_reports", [("state", state)]).lastValue
        }
        func oldest() throws -> Double? {
            try metrics.expectGauge("petspot_outbox_oldest_undelivered_age_seconds").lastValue
        }

        await gauges.refresh()
        #expect(try reports("pending") == 0 && oldest() == 0)
        #expect(try metrics.expectGauge("petspot_outbox_readable").lastValue == 1)

        // Three reports, the oldest two hours before `now`; one delivered, one rejected.
        let start = now.addingTimeInterval(-7200)
        for index in 0..<3 {
            _ = try await outbox.enqueue(
                report: work.report(createdAt: start.addingTimeInterval(Double(index) * 60)), photoFile: work.photoPath)
        }
        let first = try #require(try await outbox.claimNext(now: now))
        try await outbox.markDelivered(first.id, status: 201, reference: nil, note: nil, at: now)
        let second = try #require(try await outbox.claimNext(now: now))
        try await outbox.markRejected(second.id, status: 400, error: "HTTP 400", at: now)
        await gauges.refresh()
        #expect(try reports("pending") == 1)
        #expect(try reports("delivered") == 1)
        #expect(try reports("rejected") == 1)
        #expect(try reports("delivering") == 0)
        // The oldest still to deliver is the third (two minutes after the first).
        #expect(try oldest() == 7200 - 120)
    }
}
