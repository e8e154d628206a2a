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
/// client an invalid coordinate. An actor: one-shot requests wait under its
/// exclusion (``location(_:)``); what needs no waiting (the cached answer,
/// observing) is read without a hop.
public actor LiveFixHub: PositionSource {
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

    /// The kind of the primary source.
    public nonisolated let kind: FixSourceKind
    /// Fixes of a lower mode are rejected.
    public nonisolated let minimumMode: FixMode
    /// Answers while the primary has nothing.
    public nonisolated let fallback: Fallback?

    public private(set) var link: Link = .starting
    public private(set) var latest: LocationFix? {
        didSet { snapshot.withLock { $0 = latest } }
    }
    /// A copy of ``latest`` readable without entering the actor: a cached
    /// answer (the common `location.get`) then costs one uncontended lock
    /// instead of an actor hop per request. Written only from the actor.
    private nonisolated let snapshot = Mutex<LocationFix?>(nil)
    private var fixCount = 0
    private var rejectedCount = 0
    private var reconnectCount = 0
    private var hasConnectedBefore = false
    private var nextID: UInt64 = 0
    private var waiters: [UInt64: Waiter] = [:]
    /// Observers, behind their own lock rather than the actor, so that
    /// observing and ending an observation need no actor hop; fan-out takes
    /// the lock once per fix.
    private nonisolated let observers = FixObservers()

    /// Creates a hub.
    /// - Parameters:
    ///   - kind: the primary source's kind.
    ///   - minimumMode: `source.min_mode`; lower fixes are rejected.
    ///   - fallback: `source.fallback`, when configured.
    public init(kind: FixSourceKind, minimumMode: FixMode = .twoD, fallback: Fallback? = nil) {
        self.kind = kind
        self.minimumMode = minimumMode
        self.fallback = fallback
    }

    // MARK: Input from producers

    /// Takes one event from the producer.
    public func receive(_ event: SourceEvent) {
        switch event {
        case .connected(let device):
            if hasConnectedBefore, case .down = link { reconnectCount += 1 }
            hasConnectedBefore = true
            link = .up(device: device)
        case .fix(let candidate):
            guard let fix = candidate.sanitized(), fix.mode >= minimumMode else {
                rejectedCount += 1
                return
            }
            if case .up = link {} else { link = .up(device: nil) }
            fixCount += 1
            latest = fix
            deliver(fix)
        case .noFix:
            break
        case .rejected:
            rejectedCount += 1
        case .disconnected(let reason):
            link = .down(reason: reason)
            failWaitersOnOutage()
        }
    }

    // MARK: Queries

    /// The newest fix when it answers `request` at once (see
    /// ``LocationRequest/isAnswerable(from:at:)``), without an actor hop;
    /// `nil` when ``location(_:)`` has to decide (wait, fallback, outage).
    public nonisolated func cachedAnswer(_ request: LocationRequest, at now: ContinuousClock.Instant) -> LocationFix? {
        snapshot.withLock { latest in
            guard let latest, request.isAnswerable(from: latest, at: now) else { return nil }
            return latest
        }
    }

    /// One fix with the semantics of `location.get`; see ``LocationService/location(_:)``.
    public func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix {
        let now = ContinuousClock.now
        if let latest, request.isAnswerable(from: latest, at: now) { return latest }
        // A fresh cached fix that only misses desiredAccuracy has been seen:
        // it answers at the timeout unless a better one arrives.
        let seen = latest.flatMap { request.accepts($0) && now - $0.receivedAt <= request.maxAge ? $0 : nil }
        var isDown = false
        if case .down = link { isDown = true }
        // The fallback stands in only while the primary is down or has no
        // fix within maxAge (not for one that only misses desiredAccuracy),
        // and never below the request's minMode.
        if let fallback, isDown || seen == nil {
            let fix = fallback.makeFix(now)
            if request.accepts(fix) { return fix }
        }
        if isDown { throw .sourceUnavailable }

        let id = makeID()
        let deadline = now + request.timeout
        let result: Result<LocationFix, LocationError> = await withDeadline(deadline) {
            // The deadline ends the wait with a timeout (or the best fix seen).
            await self.finish(id: id)
            return nil
        } operation: {
            let waiter = ResumeOnce<Result<LocationFix, LocationError>>()
            return await withTaskCancellationHandler {
                await self.wait(id: id, request: request, best: seen, deadline: deadline, as: waiter)
            } onCancel: {
                // At once, off the actor; the request leaves the waiters when it runs there again.
                waiter.resume(.failure(.locationUnknown))
            }
        }
        return try result.get()
    }

    /// `nil`: a live hub's watchers get its next fix.
    public nonisolated func fixForNewWatcher(at now: ContinuousClock.Instant) -> LocationFix? { nil }

    /// Whether anyone observes now.
    public nonisolated var isListened: Bool { observers.isListened }

    /// How many observations (``observe(_:)``) are open.
    public nonisolated var observerCount: Int { observers.count }

    /// Calls `observer` with every accepted fix, synchronously on the hub's
    /// executor as the fix arrives: for a consumer that fans fixes out
    /// itself and must not add a task wake-up per fix (the daemon's
    /// `WatchFanOut` hands each fix straight to the event loops). It must
    /// return at once: it holds up the hub while it runs.
    /// - Returns: ends the observation; later fixes are not passed on.
    public nonisolated func observe(_ observer: @escaping @Sendable (LocationFix) -> Void) -> @Sendable () -> Void {
        observers.observe(observer)
    }

    /// The counters and state for `daemon.status`.
    public func status() -> SourceStatus {
        var device: String?
        if case .up(let name) = link { device = name }
        var connected = false
        if case .up = link { connected = true }
        var reason: String?
        if case .down(let why) = link { reason = why }
        return SourceStatus(
            kind: kind,
            connected: connected,
            device: device,
            lastFixAge: latest.map { $0.age() },
            fixes: fixCount,
            rejected: rejectedCount,
            reconnects: reconnectCount,
            fallback: fallback?.kind,
            reason: reason
        )
    }

    /// The mode of the newest fix, `nil` before any; without an actor hop.
    public nonisolated var newestMode: FixMode? { snapshot.withLock { $0?.mode } }

    /// How many one-shot requests are waiting.
    public var waiterCount: Int { waiters.count }

    // MARK: Internals

    private func makeID() -> UInt64 {
        nextID &+= 1
        return nextID
    }

    private func wait(
        id: UInt64, request: LocationRequest, best: LocationFix?, deadline: ContinuousClock.Instant,
        as waiter: ResumeOnce<Result<LocationFix, LocationError>>
    ) async -> Result<LocationFix, LocationError> {
        let result = await withCheckedContinuation { continuation in
            // The deadline task may already have run `finish` for this id
            // (a zero or tiny timeout): registering now would wait forever.
            guard !Task.isCancelled, ContinuousClock.now < deadline, waiter.wait(continuation) else {
                if let best, !Task.isCancelled {
                    continuation.resume(returning: .success(best))
                } else {
                    continuation.resume(returning: .failure(.locationUnknown))
                }
                return
            }
            waiters[id] = Waiter(request: request, best: best, continuation: waiter)
        }
        // Resumed by its cancellation: it waits no more.
        if Task.isCancelled { waiters[id] = nil }
        return result
    }

    /// Ends a wait at its deadline: the best fix seen, else `locationUnknown`.
    private func finish(id: UInt64) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        waiter.continuation.resume(waiter.best.map { .success($0) } ?? .failure(.locationUnknown))
    }

    private func deliver(_ fix: LocationFix) {
        for (id, waiter) in waiters where waiter.request.accepts(fix) {
            if waiter.request.isGoodEnough(fix) {
                waiters.removeValue(forKey: id)
                waiter.continuation.resume(.success(fix))
            } else {
                waiters[id]?.best = LocationRequest.better(waiter.best, fix)
            }
        }
        observers.publish(fix)
    }

    private func failWaitersOnOutage() {
        let pending = waiters
        waiters.removeAll()
        for (_, waiter) in pending {
            if let best = waiter.best {
                waiter.continuation.resume(.success(best))
            } else {
                waiter.continuation.resume(.failure(.sourceUnavailable))
            }
        }
    }
}
