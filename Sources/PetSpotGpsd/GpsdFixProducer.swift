import Logging
import PetSpotFixHub
import PetSpotLocation
public import PetSpotSettings
import Synchronization

/// Feeds a ``LiveFixHub`` from gpsd, connected through libgps.
///
/// `run(reportingTo:)` connects, asks gpsd to stream JSON
/// (`WATCH_ENABLE | WATCH_JSON`) and turns every TPV report into a
/// ``SourceEvent``:
/// - the first line gpsd sends → `.connected(device:)` (again whenever the
///   reporting device changes, so `daemon.status` names it);
/// - a 2D/3D TPV with a valid coordinate → `.fix` (the hub applies `min_mode`
///   and counts what it drops);
/// - a mode 0/1 TPV → `.noFix`;
/// - a TPV with NaN or out-of-range coordinates, another device's TPV (with
///   ``GpsdSettings/device`` set), a line that is not strict JSON
///   (truncated, duplicate member names, …), a TPV member of the wrong type,
///   or a line over 8192 bytes → `.rejected` (each logged at debug level);
/// - other classes (VERSION, DEVICES, WATCH, SKY, …) → nothing;
/// - a failed connection attempt, a closed connection, or a gpsd silent for
///   ``GpsdSettings/silenceTimeout`` → `.disconnected`, then a reconnect
///   after a capped exponential backoff (from
///   ``initialReconnectDelay``, doubling up to
///   ``GpsdSettings/reconnectMax``; reset once gpsd has spoken).
///
/// Fixes carry `receivedAt: .now` (monotonic receipt time), so a receiver
/// clock that is 1024 weeks off or steps backwards never makes a fix look
/// fresh or stale. Each connection has a dedicated reader thread
/// (``GpsdReader``), never the cooperative pool: it reads and checks the
/// lines itself, uses libgps to connect and to read TPV times, and
/// hands each fix to the hub itself, so a fix wakes no task.
/// Cancelling the calling task wakes the reader at once (``StopFlag``), and
/// the socket is closed before `run` returns.
public struct GpsdFixProducer: FixProducer {
    /// Always `.gpsd`.
    public var kind: FixSourceKind { .gpsd }
    /// Where and how to connect: `[source.gpsd]`.
    public let settings: GpsdSettings
    /// The first reconnect delay; each failed attempt doubles it up to
    /// ``GpsdSettings/reconnectMax``. A tuning value, not a configuration key.
    public let initialReconnectDelay: Duration
    private let logger: Logger

    /// Creates a producer; nothing connects until ``run(reportingTo:)``.
    /// - Parameters:
    ///   - settings: `[source.gpsd]`.
    ///   - initialReconnectDelay: the first backoff step (default 250 ms; tests shorten it).
    ///   - logger: receives connection changes (info) and dropped reports (debug).
    public init(
        settings: GpsdSettings, initialReconnectDelay: Duration = .milliseconds(250),
        logger: Logger = Logger(label: "petspot.gpsd")
    ) {
        self.settings = settings
        self.initialReconnectDelay = initialReconnectDelay
        self.logger = logger
    }

    /// Connects and reconnects until the calling task is cancelled.
    /// Never throws; returns only on cancellation, after the socket is closed.
    public func run(reportingTo hub: LiveFixHub) async {
        var backoff = ReconnectBackoff(
            initial: initialReconnectDelay, cap: settings.reconnectMax)
        while !Task.isCancelled {
            let spoke = await session(reportingTo: hub)
            if Task.isCancelled { break }
            if spoke { backoff.reset() }
            let delay = backoff.next()
            logger.debug("reconnecting to gpsd", metadata: ["delay": "\(delay)"])
            do { try await hub.sleeper.sleep(for: delay) } catch { break }
        }
    }

    /// One connection, from the attempt to its end. Its lines reach the hub
    /// on the reader thread (``GpsdIntake``); only the end comes back here.
    /// - Returns: whether gpsd sent anything on it.
    private func session(reportingTo hub: LiveFixHub) async -> Bool {
        let intake = GpsdIntake(hub: hub, settings: settings, logger: logger)
        let reason = await GpsdReader.run(settings) { intake.take($0) }
        let spoke = intake.spoke
        if spoke {
            logger.warning("gpsd is unavailable", metadata: ["reason": "\(reason)"])
        } else {
            logger.debug("gpsd is unavailable", metadata: ["reason": "\(reason)"])
        }
        hub.receive(.disconnected(reason: reason))
        return spoke
    }
}

/// One session's events into the hub, on the reader thread: the device
/// filter, the device change that `daemon.status` names, and the turning of
/// a report into a ``SourceEvent``.
private final class GpsdIntake: Sendable {
    private struct State {
        var spoke = false
        var device: String?
    }

    private let hub: LiveFixHub
    private let settings: GpsdSettings
    private let logger: Logger
    /// Touched only by the reader thread while it runs, then read once it
    /// has ended: the lock is never contended.
    private let state = Mutex(State())

    init(hub: LiveFixHub, settings: GpsdSettings, logger: Logger) {
        self.hub = hub
        self.settings = settings
        self.logger = logger
    }

    /// Whether gpsd sent a complete line on this session.
    var spoke: Bool { state.withLock { $0.spoke } }

    func take(_ event: ReaderEvent) {
        let filter = settings.device
        switch event {
        case .alive:
            state.withLock {
                $0.spoke = true
                $0.device = filter
            }
            logger.info(
                "connected to gpsd", metadata: ["host": "\(settings.host)", "port": "\(settings.port)"])
            hub.receive(.connected(device: filter))
        case .report(let report):
            if let filter, report.device != filter {
                logger.debug("ignoring another device's report", metadata: ["device": "\(report.device)"])
                hub.receive(.rejected(reason: "report from \(report.device), not \(filter)"))
                return
            }
            switch report.outcome(receivedAt: .now) {
            case .fix(let fix):
                let changed = state.withLock { state in
                    guard !report.device.isEmpty, report.device != state.device else { return false }
                    state.device = report.device
                    return true
                }
                if changed { hub.receive(.connected(device: report.device)) }
                hub.receive(.fix(fix))
            case .noFix:
                hub.receive(.noFix)
            case .rejected(let reason):
                logger.debug("rejected a gpsd report", metadata: ["reason": "\(reason)"])
                hub.receive(.rejected(reason: reason))
            }
        case .malformed(let reason):
            logger.debug("rejected a gpsd line", metadata: ["reason": "\(reason)"])
            hub.receive(.rejected(reason: reason))
        }
    }
}
