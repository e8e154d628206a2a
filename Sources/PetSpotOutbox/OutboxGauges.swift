import FoundationEssentials
import Metrics

/// The outbox's figures for the station's metrics file, read from the
/// queue at each ``refresh()``: counts and an age, never a report's content.
///
/// - `petspot_outbox_reports{state}`: reports now `pending`, `delivering`,
///   `delivered` (kept until the retention purge) and `rejected` (waiting for the operator).
/// - `petspot_outbox_oldest_undelivered_age_seconds`: how long the oldest
///   report not yet delivered has waited (0 with none), so "a backlog older
///   than an hour" is `petspot_outbox_oldest_undelivered_age_seconds > 3600`.
/// - `petspot_outbox_readable`: 1 when the last refresh could read the queue, else 0.
public struct OutboxGauges: Sendable {
    private let outbox: Outbox
    private let reports: [OutboxState: Gauge]
    private let oldestAge: Gauge
    private let readable: Gauge
    private let now: @Sendable () -> Date

    public init(
        outbox: Outbox, factory: any MetricsFactory = MetricsSystem.factory,
        now: @escaping @Sendable () -> Date = Date.init
    ) {
        self.outbox = outbox
        self.now = now
        var reports: [OutboxState: Gauge] = [:]
        for state in [OutboxState.pending, .delivering, .delivered, .rejected] {
            reports[state] = Gauge(
                label: "petspot_outbox_reports", dimensions: [("state", state.rawValue)], factory: factory)
        }
        self.reports = reports
        oldestAge = Gauge(label: "petspot_outbox_oldest_undelivered_age_seconds", factory: factory)
        readable = Gauge(label: "petspot_outbox_readable", factory: factory)
    }

    /// Reads the queue and sets every figure (a queue that cannot be read sets `readable` to 0 only).
    public func refresh() async {
        let summary: OutboxSummary
        do {
            summary = try await outbox.summary()
        } catch {
            readable.record(0)
            return
        }
        readable.record(1)
        reports[.pending]?.record(summary.pending)
        reports[.delivering]?.record(summary.delivering)
        reports[.delivered]?.record(summary.delivered)
        reports[.rejected]?.record(summary.rejected)
        oldestAge.record(summary.oldestUndeliveredAt.map { max(0, now().timeIntervalSince($0)) } ?? 0)
    }
}
