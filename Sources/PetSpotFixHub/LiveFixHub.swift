import PetSpotLocation
import Synchronization

/// The engine behind a streaming source (gpsd, a scenario): its producer
/// feeds it fixes as they come; it keeps the newest valid fix, answers
/// one-shot requests (at once from the cache, or by waiting with a
/// deadline, or from the fallback), hands fixes to its observers, and keeps
/// the counters `daemon.status` shows. The static source is a
/// ``FixedPosition`` instead: it has nothing to wait for.
///
/// Every fix from a producer is validated here, so no source can hand a
/// client an invalid coordinate. Its state sits behind one lock, not an
/// actor: a producer hands in a fix synchronously on its own thread
/// (``receive(_:)``), and the fix reaches the waiting requests and the
/// observers (the daemon's `WatchFanOut`, which hands it straight to the
/// event loops) from there. A fix from gpsd then wakes the reader thread
/// and the event loops that have watchers, and no other thread (issue 28:
/// a device pays for every wake-up).
public final class LiveFixHub: PositionSource {
    /// Connection state of the primary source.
    public enum Link: Sendable, Equatable {
        /// No attempt has finished yet: requests wait.
        case starting
        /// Reachable.
        case up(device: String?)
        /// Down: requests fail with `sourceUnavailable` (or get the fallback).
        case down(reason: String)
    }

    private struct Waiter {
        var request: LocationRequest
        var best: LocationFix?
        /// Resumed by a fix, the deadline, an outage or the request's cancellation, whichever is first.
        var continuation: ResumeOnce<Result<LocationFix, LocationError>>
    }

    private struct State {
        var link: Link = .starting
        var latest: LocationFix?
        var fixCount = 0
        var rejectedCount = 0
        var reconnectCount = 0
        var hasConnectedBefore = false
        var nextID: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]

        mutating func makeID() -> UInt64 {
            nextID &+= 1
            return nextID
        }

        /// Takes `fix` into the waiting requests: removes and returns those
        /// it answers, keeps it as the best seen for those it only satisfies.
        mutating func answer(with fix: LocationFix) -> [ResumeOnce<Result<LocationFix, LocationError>>] {
            var answered: [ResumeOnce<Result<LocationFix, LocationError>>] = []
            for (id, waiter) in waiters where waiter.request.accepts(fix) {
                if waiter.request.isGoodEnough(fix) {
                    waiters.removeValue(forKey: id)
                    answered.append(waiter.continuation)
                } else {
                    waiters[id]?.best = LocationRequest.better(waiter.best, fix)
                }
            }
            return answered
        }
    }

    /// What ``location(_:)`` decides before it waits.
    private enum Start {
        case answer(LocationFix)
        case fail(LocationError)
        /// Wait under this id; `seen` is the best fix so far, `fixes` the fix count when decided.
        case wait(id: UInt64, seen: LocationFix?, fixes: Int)
    }

    /// The kind of the primary source.
    public let kind: FixSourceKind
    /// Fixes of a lower mode are rejected.
    public let minimumMode: FixMode
    /// Answers while the primary has nothing.
    public let fallback: Fallback?

    private let state = Mutex(State())
    /// Observers, behind their own lock: fan-out takes it once per fix,
    /// outside the hub's.
    private let observers = FixObservers()
    /// Where the hub's timed waits run: a waiting request's deadline, and
    /// its producer's pauses (a scenario's steps, gpsd's reconnect backoff).
    public let sleeper: Sleeper

    /// Creates a hub.
    /// - Parameters:
    ///   - kind: the primary source's kind.
    ///   - minimumMode: `source.min_mode`; lower fixes are rejected.
    ///   - fallback: `source.fallback`, when configured.
    ///   - sleeper: where a request's deadline timer runs (the daemon: its event loops).
    public init(
        kind: FixSourceKind, minimumMode: FixMode = .twoD, fallback: Fallback? = nil, sleeper: Sleeper = .task
    ) {
        self.kind = kind
        self.minimumMode = minimumMode
        self.fallback = fallback
        self.sleeper = sleeper
    }

    /// The primary source's connection state.
    public var link: Link { state.withLock { $0.link } }

    /// The newest valid fix, `nil` before any.
    public var latest: LocationFix? { state.withLock { $0.latest } }

    // MARK: Input from producers

    /// Takes one event from the producer, synchronously on the producer's
    /// thread: a fix answers the requests it satisfies and reaches every
    /// observer before this returns. One producer feeds a hub; its events
    /// are taken in the order it calls.
    public func receive(_ event: SourceEvent) {
        switch event {
        case .connected(let device):
            state.withLock { state in
                if state.hasConnectedBefore, case .down = state.link { state.reconnectCount += 1 }
                state.hasConnectedBefore = true
                state.link = .up(device: device)
            }
        case .fix(let candidate):
            guard let fix = candidate.sanitized(), fix.mode >= minimumMode else {
                state.withLock { $0.rejectedCount += 1 }
                return
            }
            let answered = state.withLock { state in
                if case .up = state.link {} else { state.link = .up(device: nil) }
                state.fixCount += 1
                state.latest = fix
                return state.answer(with: fix)
            }
            for waiter in answered { waiter.resume(.success(fix)) }
            observers.publish(fix)
        case .noFix:
            break
        case .rejected:
            state.withLock { $0.rejectedCount += 1 }
        case .disconnected(let reason):
            let pending = state.withLock { state in
                state.link = .down(reason: reason)
                defer { state.waiters.removeAll() }
                return Array(state.waiters.values)
            }
            for waiter in pending {
                waiter.continuation.resume(waiter.best.map { .success($0) } ?? .failure(.sourceUnavailable))
            }
        }
    }

    // MARK: Queries

    /// The newest fix when it answers `request` at once (see
    /// ``LocationRequest/isAnswerable(from:at:)``), with one uncontended
    /// lock; `nil` when ``location(_:)`` has to decide (wait, fallback, outage).
    public func cachedAnswer(_ request: LocationRequest, at now: ContinuousClock.Instant) -> LocationFix? {
        state.withLock { state in
            guard let latest = state.latest, request.isAnswerable(from: latest, at: now) else { return nil }
            return latest
        }
    }

    /// One fix with the semantics of `location.get`; see ``LocationService/location(_:)``.
    public func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix {
        let now = ContinuousClock.now
        let start: Start = state.withLock { state in
            if let latest = state.latest, request.isAnswerable(from: latest, at: now) { return .answer(latest) }
            // A fresh cached fix that only misses desiredAccuracy has been seen:
            // it answers at the timeout unless a better one arrives.
            let seen = state.latest.flatMap {
                request.accepts($0) && $0.elapsed(at: now) <= request.maxAge ? $0 : nil
            }
            var isDown = false
            if case .down = state.link { isDown = true }
            // The fallback stands in only while the primary is down or has no
            // fix within maxAge (not for one that only misses desiredAccuracy),
            // and never below the request's minMode.
            if let fallback, isDown || seen == nil {
                let fix = fallback.makeFix(now)
                if request.accepts(fix) { return .answer(fix) }
            }
            if isDown { return .fail(.sourceUnavailable) }
            return .wait(id: state.makeID(), seen: seen, fixes: state.fixCount)
        }
        let id: UInt64
        let seen: LocationFix?
        let fixes: Int
        switch start {
        case .answer(let fix): return fix
        case .fail(let error): throw error
        case .wait(let waitID, let best, let count): (id, seen, fixes) = (waitID, best, count)
        }

        let deadline = now + request.timeout
        let result: Result<LocationFix, LocationError> = await withDeadline(deadline, sleeper: sleeper) {
            // The deadline ends the wait with a timeout (or the best fix seen).
            self.finish(id: id)
            return nil
        } operation: {
            let waiter = ResumeOnce<Result<LocationFix, LocationError>>()
            return await withTaskCancellationHandler {
                await self.wait(
                    id: id, request: request, best: seen, fixesBefore: fixes, deadline: deadline, as: waiter)
            } onCancel: {
                // At once; the request leaves the waiters when its task runs again.
                waiter.resume(.failure(.locationUnknown))
            }
        }
        return try result.get()
    }

    /// `nil`: a live hub's watchers get its next fix.
    public func fixForNewWatcher(at now: ContinuousClock.Instant) -> LocationFix? { nil }

    /// Whether anyone observes now.
    public var isListened: Bool { observers.isListened }

    /// How many observations (``observe(_:)``) are open.
    public var observerCount: Int { observers.count }

    /// Calls `observer` with every accepted fix, synchronously on the
    /// producer's thread as the fix arrives (``receive(_:)``): for a
    /// consumer that fans fixes out itself and must not add a wake-up per
    /// fix (the daemon's `WatchFanOut` hands each fix straight to the event
    /// loops). It must return at once: it holds up the producer while it runs.
    /// - Returns: ends the observation; later fixes are not passed on.
    public func observe(_ observer: @escaping @Sendable (LocationFix) -> Void) -> @Sendable () -> Void {
        observers.observe(observer)
    }

    /// The counters and state for `daemon.status`.
    public func status() -> SourceStatus {
        state.withLock { state in
            var device: String?
            var connected = false
            var reason: String?
            switch state.link {
            case .starting: break
            case .up(let name): (device, connected) = (name, true)
            case .down(let why): reason = why
            }
            return SourceStatus(
                kind: kind,
                connected: connected,
                device: device,
                lastFixAge: state.latest.map { $0.age() },
                fixes: state.fixCount,
                rejected: state.rejectedCount,
                reconnects: state.reconnectCount,
                fallback: fallback?.kind,
                reason: reason
            )
        }
    }

    /// The mode of the newest fix, `nil` before any.
    public var newestMode: FixMode? { state.withLock { $0.latest?.mode } }

    /// How many one-shot requests are waiting.
    public var waiterCount: Int { state.withLock { $0.waiters.count } }

    // MARK: Internals

    /// Registers the request as waiting, unless its deadline passed or it
    /// was cancelled first; what happened since ``location(_:)`` decided to
    /// wait is taken into account at once: the newest fix, when one arrived
    /// (`fixesBefore`), and an outage.
    private func wait(
        id: UInt64, request: LocationRequest, best: LocationFix?, fixesBefore: Int,
        deadline: ContinuousClock.Instant, as waiter: ResumeOnce<Result<LocationFix, LocationError>>
    ) async -> Result<LocationFix, LocationError> {
        let result = await withCheckedContinuation { continuation in
            let outcome: Result<LocationFix, LocationError>? = state.withLock { state in
                var best = best
                if state.fixCount != fixesBefore, let latest = state.latest, request.accepts(latest) {
                    if request.isGoodEnough(latest) { return .success(latest) }
                    best = LocationRequest.better(best, latest)
                }
                // The source went down since: answered as `receive(.disconnected)` answers the waiters.
                if case .down = state.link { return best.map { .success($0) } ?? .failure(.sourceUnavailable) }
                // The deadline task may already have run `finish` for this id
                // (a zero or tiny timeout): registering now would wait forever.
                guard !Task.isCancelled, ContinuousClock.now < deadline, waiter.wait(continuation) else {
                    if let best, !Task.isCancelled { return .success(best) }
                    return .failure(.locationUnknown)
                }
                state.waiters[id] = Waiter(request: request, best: best, continuation: waiter)
                return nil
            }
            if let outcome { continuation.resume(returning: outcome) }
        }
        // Resumed by its cancellation: it waits no more.
        if Task.isCancelled { state.withLock { _ = $0.waiters.removeValue(forKey: id) } }
        return result
    }

    /// Ends a wait at its deadline: the best fix seen, else `locationUnknown`.
    private func finish(id: UInt64) {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
        waiter.continuation.resume(waiter.best.map { .success($0) } ?? .failure(.locationUnknown))
    }
}
