import Metrics
import PetSpotFixHub
import PetSpotLocation
import Synchronization

/// The daemon's figures read from state rather than counted as they
/// happen: the source, clients, watchers and held updates. ``refresh()``
/// sets them (the metrics file runs it before each write); through
/// swift-metrics, so any bootstrapped backend gets them. None holds a
/// coordinate or anything about a person.
///
/// - `petspot_source_connected`: 1 while the source is reachable, else 0.
/// - `petspot_source_has_fix`: 1 while the newest valid fix is at most
///   ``freshness`` old (a `location.get` with the default maxAge is answered
///   at once), else 0.
/// - `petspot_source_fix_age_seconds`: seconds since the newest valid fix
///   (since start while there was none), so "no fix for 10 minutes" is
///   `petspot_source_fix_age_seconds > 600`.
/// - `petspot_source_fix_mode`: 2 or 3 for the newest fix's mode, 0 with none.
/// - `petspot_source_fixes_total`, `petspot_source_rejected_total`,
///   `petspot_source_reconnects_total`: the source's counts since start
///   (valid fixes; dropped reports; successful reconnections).
/// - `petspot_clients`, `petspot_watchers`: connections and watches open now.
/// - `petspot_held_update_bytes`: bytes of update lines held for watchers
///   that do not read (newest only, one per subscription).
public final class DaemonGauges: Sendable {
    /// A fix at most this old counts as "has fix" (the default `maxAge`).
    public static let freshness: Double = 5

    private let hub: any PositionSource
    private let registry: ClientRegistry
    private let startedAt: ContinuousClock.Instant
    private let connected, hasFix, fixAge, fixMode, clients, watchers, heldBytes: Gauge
    private let fixes, rejected, reconnects: Counter
    /// What the source counters said at the last refresh (they are passed on as increments).
    private let lastCounts = Mutex<(fixes: Int, rejected: Int, reconnects: Int)>((0, 0, 0))

    public init(
        hub: any PositionSource, registry: ClientRegistry, startedAt: ContinuousClock.Instant = .now,
        factory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.hub = hub
        self.registry = registry
        self.startedAt = startedAt
        func gauge(_ label: String) -> Gauge { Gauge(label: label, factory: factory) }
        func counter(_ label: String) -> Counter { Counter(label: label, factory: factory) }
        connected = gauge("petspot_source_connected")
        hasFix = gauge("petspot_source_has_fix")
        fixAge = gauge("petspot_source_fix_age_seconds")
        fixMode = gauge("petspot_source_fix_mode")
        clients = gauge("petspot_clients")
        watchers = gauge("petspot_watchers")
        heldBytes = gauge("petspot_held_update_bytes")
        fixes = counter("petspot_source_fixes_total")
        rejected = counter("petspot_source_rejected_total")
        reconnects = counter("petspot_source_reconnects_total")
    }

    /// Reads the state and sets every figure.
    public func refresh() async {
        let status = await hub.status()
        connected.record(status.connected ? 1 : 0)
        let age = status.lastFixAge ?? (ContinuousClock.now - startedAt).seconds
        fixAge.record(age)
        hasFix.record(status.lastFixAge.map { $0 <= Self.freshness } == true ? 1 : 0)
        fixMode.record(status.lastFixAge == nil ? 0 : Double(hub.newestMode?.rawValue ?? 0))
        let (newFixes, newRejected, newReconnects) = lastCounts.withLock { last in
            defer { last = (status.fixes, status.rejected, status.reconnects) }
            return (status.fixes - last.fixes, status.rejected - last.rejected, status.reconnects - last.reconnects)
        }
        if newFixes > 0 { fixes.increment(by: Int64(newFixes)) }
        if newRejected > 0 { rejected.increment(by: Int64(newRejected)) }
        if newReconnects > 0 { reconnects.increment(by: Int64(newReconnects)) }
        clients.record(registry.clients)
        watchers.record(registry.watchers)
        heldBytes.record(OutboundQueue.heldUpdateBytes.load(ordering: .relaxed))
    }
}
