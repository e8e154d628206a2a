import FoundationEssentials
import Logging
import Metrics
import PetSpotFixHub
import PetSpotJSON
import PetSpotLocation
import ServiceLifecycle
import Synchronization

/// The moved-station alarm: a kiosk is fixed, so a kiosk whose live
/// receiver puts it far from its configured position has been stolen or
/// relocated.
///
/// Every fix the primary source delivers (the hub's accepted fixes; the
/// static fallback's answers never count) is compared with ``home``. The
/// station counts as *moved* once every fix for ``hold`` lies farther than
/// ``radius``, and as *back* once every fix for as long lies within it: a
/// multipath spike shorter than ``hold`` never trips it, and jitter within
/// the radius never starts the clock. Each change is logged, audited
/// (`station.moved`, `station.returned`, flushed at once) and shown in
/// `daemon.status` (``status``); the figures `petspot_station_displacement_meters`
/// and `petspot_station_moved` go to the metrics backend. A distance, never
/// a position, leaves this type.
public final class StationWatch: Service, Sendable, CustomStringConvertible {
    /// The configured position.
    public let home: Coordinate
    /// Farther than this (metres) is away.
    public let radius: Double
    /// How long every fix must agree before the state changes.
    public let hold: Duration
    private let hub: any PositionSource
    private let audit: AuditLog?
    private let logger: Logger
    private let displacementGauge: Gauge
    private let movedGauge: Gauge
    private let state = Mutex(State())

    private struct State {
        var displacement: Double?
        var moved = false
        /// Since when every fix has disagreed with ``moved``; `nil` while the newest agrees.
        var disagreeingSince: ContinuousClock.Instant?
        var changedAt: UTCTimestamp?
    }

    /// Creates the watch of `hub`'s fixes against `home`.
    public init(
        home: Coordinate, radius: Double, hold: Duration, hub: any PositionSource, audit: AuditLog?, logger: Logger,
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.home = home
        self.radius = radius
        self.hold = hold
        self.hub = hub
        self.audit = audit
        self.logger = logger
        displacementGauge = Gauge(label: "petspot_station_displacement_meters", factory: metrics)
        movedGauge = Gauge(label: "petspot_station_moved", factory: metrics)
        movedGauge.record(0)
    }

    public var description: String { "StationWatch(radius: \(radius) m)" }

    /// Judges the hub's fixes until a graceful shutdown begins.
    public func run() async throws {
        let end = hub.observe { [self] fix in observe(fix) }
        defer { end() }
        try? await gracefulShutdown()
    }

    /// Judges one fix (called synchronously as the hub accepts it: quick, no waiting).
    public func observe(_ fix: LocationFix) {
        let distance = Geodesy.distance(from: home, to: fix.coordinate)
        let change: (moved: Bool, since: Duration)? = state.withLock { state in
            state.displacement = distance
            let away = distance > radius
            guard away != state.moved else {
                state.disagreeingSince = nil
                return nil
            }
            let since = state.disagreeingSince ?? fix.receivedAt
            state.disagreeingSince = since
            let held = fix.receivedAt - since
            guard held >= hold else { return nil }
            state.moved = away
            state.disagreeingSince = nil
            state.changedAt = UTCTimestamp(secondsSince1970: Date().timeIntervalSince1970)
            return (away, held)
        }
        displacementGauge.record(distance)
        guard let change else { return }
        movedGauge.record(change.moved ? 1 : 0)
        let reason =
            "displacement \(Int(distance.rounded())) m, radius \(Int(radius.rounded())) m, "
            + "\(change.moved ? "beyond" : "within") it for \(Int(change.since.seconds.rounded())) s"
        if change.moved {
            logger.critical("the station has moved from its configured position", metadata: ["why": "\(reason)"])
        } else {
            logger.notice("the station is back at its configured position", metadata: ["why": "\(reason)"])
        }
        audit?.record(
            AuditRecord(
                method: (change.moved ? AuditEvent.stationMoved : .stationReturned).rawValue,
                client: .daemonProcess, reason: reason))
    }

    /// Whether the station counts as moved now.
    public var isMoved: Bool { state.withLock { $0.moved } }

    /// For `daemon.status`: `{"moved", "displacement" (metres, once a fix
    /// was seen), "radius", "since" (the last change, if any)}`.
    public var status: JSONValue {
        let snapshot = state.withLock { $0 }
        var fields: [String: JSONValue] = ["moved": .bool(snapshot.moved), "radius": .number(radius)]
        if let displacement = snapshot.displacement { fields["displacement"] = .number(displacement.rounded()) }
        if let changedAt = snapshot.changedAt { fields["since"] = .string(changedAt.iso8601) }
        return .object(fields)
    }
}
