import PetSpotLocation
import Synchronization

/// What the daemon serves positions from: one-shot answers, an observation
/// of the fixes as they come, and the counters `daemon.status` shows.
///
/// Two kinds conform, chosen in one place (the daemon app's
/// `SourceFactory`): a ``LiveFixHub``, fed by a streaming producer (gpsd,
/// a scenario), and a ``FixedPosition`` (the static source), which answers
/// from its position at once and needs no hub.
public protocol PositionSource: Sendable {
    /// The kind of the primary source.
    var kind: FixSourceKind { get }

    /// The fix that answers `request` at `now` at once, without waiting or
    /// an actor hop; `nil` when ``location(_:)`` has to decide.
    func cachedAnswer(_ request: LocationRequest, at now: ContinuousClock.Instant) -> LocationFix?

    /// One fix with the semantics of `location.get`; see ``LocationService/location(_:)``.
    func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix

    /// Calls `observer` with every fix the source accepts, synchronously as
    /// it arrives: for a consumer that fans fixes out itself (the daemon's
    /// `WatchFanOut`, the station watch) and must not add a task wake-up per
    /// fix. It must return at once.
    /// - Returns: ends the observation; later fixes are not passed on.
    func observe(_ observer: @escaping @Sendable (LocationFix) -> Void) -> @Sendable () -> Void

    /// The fix a watcher joining at `now` is shown at once: a fixed
    /// position's; `nil` for a live hub, whose watchers get its next fix.
    func fixForNewWatcher(at now: ContinuousClock.Instant) -> LocationFix?

    /// The counters and state for `daemon.status`.
    func status() async -> SourceStatus

    /// The mode of the newest fix, `nil` before any; without an actor hop.
    var newestMode: FixMode? { get }
}

extension PositionSource {
    /// ``cachedAnswer(_:at:)`` now.
    public func cachedAnswer(_ request: LocationRequest) -> LocationFix? { cachedAnswer(request, at: .now) }

    /// ``fixForNewWatcher(at:)`` now.
    public func fixForNewWatcher() -> LocationFix? { fixForNewWatcher(at: .now) }

    /// The fixes a watcher with `options` is given, newest-only buffered:
    /// an observation (``observe(_:)``) through one ``WatchFilter``, the
    /// same rule the daemon's fan-out applies to each of its watchers. No
    /// task: the observation ends when the stream is dropped or its
    /// consumer is cancelled.
    public func updates(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error> {
        let (stream, continuation) = AsyncThrowingStream<LocationFix, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        let filter = Mutex(WatchFilter(options))
        let end = observe { fix in
            // Yielded outside every lock of ours (see ``FixObservers/publish(_:)``).
            if filter.withLock({ $0.pass(fix) }) { continuation.yield(fix) }
        }
        continuation.onTermination = { _ in end() }
        return stream
    }
}

/// The observers of a source and the producers waiting for one: the part
/// of fan-out both kinds of source share. A `Sendable` class over one
/// `Mutex`; observers are called after it is released.
final class FixObservers: Sendable {
    private struct State {
        var nextID: UInt64 = 0
        var observers: [UInt64: @Sendable (LocationFix) -> Void] = [:]
        /// Fixes handed in by ``publish(_:)`` so far.
        var published = 0
        /// Producers waiting in ``untilListened()``.
        var listenWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]

        mutating func makeID() -> UInt64 {
            nextID &+= 1
            return nextID
        }
    }

    private let state = Mutex(State())

    /// Whether anyone observes now.
    var isListened: Bool { state.withLock { !$0.observers.isEmpty } }

    /// Fixes handed in by ``publish(_:)`` so far, observed or not.
    var published: Int { state.withLock { $0.published } }

    /// How many observations are open.
    var count: Int { state.withLock { $0.observers.count } }

    /// Adds `observer`; the producers waiting for a listener resume.
    func observe(_ observer: @escaping @Sendable (LocationFix) -> Void) -> @Sendable () -> Void {
        let (id, waiting) = state.withLock { state in
            let id = state.makeID()
            state.observers[id] = observer
            let waiting = Array(state.listenWaiters.values)
            state.listenWaiters.removeAll()
            return (id, waiting)
        }
        for producer in waiting { producer.resume() }
        return { [weak self] in _ = self?.state.withLock { $0.observers.removeValue(forKey: id) } }
    }

    /// Hands `fix` to every observer, after the lock is released: an
    /// observer may yield to a stream, which resumes its consumer (taking
    /// the stream's lock) while a consumer being cancelled holds that lock
    /// and ends its observation here. Calling under the lock deadlocked
    /// the two (seen at shutdown).
    func publish(_ fix: LocationFix) {
        let observers = state.withLock { state in
            state.published += 1
            return Array(state.observers.values)
        }
        for observer in observers { observer(fix) }
    }

    /// Returns once someone observes, at once if someone does now, or when
    /// the calling task is cancelled.
    func untilListened() async {
        let id = state.withLock { $0.makeID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if !state.observers.isEmpty || Task.isCancelled { return true }
                    state.listenWaiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.listenWaiters.removeValue(forKey: id) }?.resume()
        }
    }
}
