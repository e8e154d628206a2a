import PetSpotLocation
import Synchronization

/// The shared engine behind every source: it keeps the newest valid fix,
/// answers one-shot requests (at once from the cache, or by waiting with a
/// deadline), fans fixes out to watchers, and keeps the counters
/// `daemon.status` shows.
///
/// A streaming source (gpsd, a scenario) feeds it fixes as they come. A
/// fixed position (the static source) is a hub made with ``init(fixed:minimumMode:)``:
/// it answers every request from the position at once, and its producer
/// (which ticks only while someone listens, ``untilListened()``) feeds its
/// watchers like any other source's.
///
/// Every fix from a producer is validated here, so no source can hand a
/// client an invalid coordinate. Watchers are buffered newest-only: a
/// watcher that does not consume holds at most one pending fix and never
/// slows anyone else.
public actor FixHub {
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
        var continuation: CheckedContinuation<Result<LocationFix, LocationError>, Never>
    }

    private struct Watcher {
        var options: WatchOptions
        var lastDelivered: LocationFix?
        var continuation: AsyncThrowingStream<LocationFix, any Error>.Continuation
    }

    /// The kind of the primary source.
    public nonisolated let kind: FixSourceKind
    /// Fixes of a lower mode are rejected.
    public nonisolated let minimumMode: FixMode
    /// Answers while the primary has nothing.
    public nonisolated let fallback: Fallback?
    /// The position a fixed hub answers every request from; `nil` for a streaming hub.
    public nonisolated let fixed: Fallback?

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
    /// Subscriptions, behind a lock rather than the actor so that
    /// subscribing and unsubscribing need no actor hop (and no relay task
    /// per watcher); fan-out takes the lock once per fix.
    private nonisolated let watchers = Mutex<Watchers>(Watchers())

    private struct Watchers {
        var nextID: UInt64 = 0
        var byID: [UInt64: Watcher] = [:]
        var observers: [UInt64: @Sendable (LocationFix) -> Void] = [:]
        /// Producers waiting in ``untilListened()``.
        var listenWaiters: [UInt64: CheckedContinuation<Void, Never>] = [:]

        var isListened: Bool { !byID.isEmpty || !observers.isEmpty }

        /// Registers a listener; the producers waiting for one, to resume once the lock is released.
        mutating func listen(
            _ add: (inout Watchers, UInt64) -> Void
        ) -> (UInt64, [CheckedContinuation<Void, Never>]) {
            nextID &+= 1
            add(&self, nextID)
            let waiting = Array(listenWaiters.values)
            listenWaiters.removeAll()
            return (nextID, waiting)
        }
    }

    /// Creates a hub.
    /// - Parameters:
    ///   - kind: the primary source's kind.
    ///   - minimumMode: `source.min_mode`; lower fixes are rejected.
    ///   - fallback: `source.fallback`, when configured.
    public init(kind: FixSourceKind, minimumMode: FixMode = .twoD, fallback: Fallback? = nil) {
        self.kind = kind
        self.minimumMode = minimumMode
        self.fallback = fallback
        self.fixed = nil
    }

    /// Creates a hub for a fixed position (the static source): every request
    /// is answered from `position` at once (or refused at once when it asks
    /// for a higher mode than the position has), and the source is up from
    /// the start. Its watchers get the fixes its producer ticks in.
    public init(fixed position: Fallback, minimumMode: FixMode = .twoD) {
        self.kind = position.kind
        self.minimumMode = minimumMode
        self.fallback = nil
        self.fixed = position
        self.link = .up(device: nil)
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
    public nonisolated func cachedAnswer(
        _ request: LocationRequest, at now: ContinuousClock.Instant = .now
    ) -> LocationFix? {
        if let fixed {
            let fix = fixed.makeFix(now)
            return request.accepts(fix) ? fix : nil
        }
        return snapshot.withLock { latest in
            guard let latest, request.isAnswerable(from: latest, at: now) else { return nil }
            return latest
        }
    }

    /// One fix with the semantics of `location.get`; see ``LocationService/location(_:)``.
    public func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix {
        let now = ContinuousClock.now
        if fixed != nil {
            // Nothing better will ever come: the position answers, or nothing does.
            guard let fix = cachedAnswer(request, at: now) else { throw .locationUnknown }
            return fix
        }
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
            await self.finish(id: id, cancelled: false)
            return nil
        } operation: {
            await withTaskCancellationHandler {
                await self.wait(id: id, request: request, best: seen, deadline: deadline)
            } onCancel: {
                Task { await self.finish(id: id, cancelled: true) }
            }
        }
        return try result.get()
    }

    /// Subscribes to fixes filtered by `options`, newest-only buffered.
    /// The subscription ends when the stream is dropped or its consumer is cancelled.
    public nonisolated func subscribe(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error> {
        let (stream, continuation) = AsyncThrowingStream<LocationFix, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(1)
        )
        let (id, waiting) = watchers.withLock { watchers in
            watchers.listen { watchers, id in
                watchers.byID[id] = Watcher(options: options, lastDelivered: nil, continuation: continuation)
            }
        }
        for producer in waiting { producer.resume() }
        continuation.onTermination = { [weak self] _ in self?.removeWatcher(id) }
        return stream
    }

    /// The fix a watcher joining now is shown at once: a fixed hub's
    /// position; `nil` for a streaming hub, whose watchers get its next fix.
    public nonisolated func fixForNewWatcher(at now: ContinuousClock.Instant = .now) -> LocationFix? {
        fixed?.makeFix(now)
    }

    /// Returns once someone listens (a subscription or an observation), at
    /// once if someone does now, or when the calling task is cancelled: a
    /// producer that makes fixes only for listeners (the static source's
    /// ticker) waits here, so an unwatched fixed hub costs no CPU.
    public nonisolated func untilListened() async {
        let id = watchers.withLock { watchers in
            watchers.nextID &+= 1
            return watchers.nextID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = watchers.withLock { watchers in
                    if watchers.isListened || Task.isCancelled { return true }
                    watchers.listenWaiters[id] = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            watchers.withLock { $0.listenWaiters.removeValue(forKey: id) }?.resume()
        }
    }

    /// Whether anyone listens now (see ``untilListened()``).
    public nonisolated var isListened: Bool { watchers.withLock { $0.isListened } }

    /// Calls `observer` with every accepted fix, synchronously on the hub's
    /// executor as the fix arrives: for a consumer that fans fixes out
    /// itself and must not add a task wake-up per fix (the daemon's
    /// ``WatchFanOut`` hands each fix straight to the event loops). It must
    /// return at once: it holds up the hub while it runs.
    /// - Returns: ends the observation; later fixes are not passed on.
    public nonisolated func observe(_ observer: @escaping @Sendable (LocationFix) -> Void) -> @Sendable () -> Void {
        let (id, waiting) = watchers.withLock { watchers in
            watchers.listen { watchers, id in watchers.observers[id] = observer }
        }
        for producer in waiting { producer.resume() }
        return { [weak self] in _ = self?.watchers.withLock { $0.observers.removeValue(forKey: id) } }
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
            // A fixed position is as fresh as any answer it gives.
            lastFixAge: fixed != nil ? 0 : latest.map { $0.age() },
            fixes: fixCount,
            rejected: rejectedCount,
            reconnects: reconnectCount,
            fallback: fallback?.kind,
            reason: reason
        )
    }

    private nonisolated func removeWatcher(_ id: UInt64) {
        _ = watchers.withLock { $0.byID.removeValue(forKey: id) }
    }

    /// The mode of the newest fix (a fixed hub's position's), `nil` before any; without an actor hop.
    public nonisolated var newestMode: FixMode? {
        if let fixed { return fixed.makeFix(.now).mode }
        return snapshot.withLock { $0?.mode }
    }

    /// How many watchers are subscribed.
    public nonisolated var watcherCount: Int { watchers.withLock { $0.byID.count } }

    /// How many one-shot requests are waiting.
    public var waiterCount: Int { waiters.count }

    // MARK: Internals

    private func makeID() -> UInt64 {
        nextID &+= 1
        return nextID
    }

    private func wait(
        id: UInt64, request: LocationRequest, best: LocationFix?, deadline: ContinuousClock.Instant
    ) async -> Result<LocationFix, LocationError> {
        await withCheckedContinuation { continuation in
            // The deadline task may already have run `finish` for this id
            // (a zero or tiny timeout): registering now would wait forever.
            if Task.isCancelled || ContinuousClock.now >= deadline {
                if let best, !Task.isCancelled {
                    continuation.resume(returning: .success(best))
                } else {
                    continuation.resume(returning: .failure(.locationUnknown))
                }
                return
            }
            waiters[id] = Waiter(request: request, best: best, continuation: continuation)
        }
    }

    /// Ends a wait at its deadline (best fix seen, else `locationUnknown`)
    /// or on cancellation.
    private func finish(id: UInt64, cancelled: Bool) {
        guard let waiter = waiters.removeValue(forKey: id) else { return }
        if let best = waiter.best, !cancelled {
            waiter.continuation.resume(returning: .success(best))
        } else {
            waiter.continuation.resume(returning: .failure(.locationUnknown))
        }
    }

    private func deliver(_ fix: LocationFix) {
        for (id, waiter) in waiters where waiter.request.accepts(fix) {
            if waiter.request.isGoodEnough(fix) {
                waiters.removeValue(forKey: id)
                waiter.continuation.resume(returning: .success(fix))
            } else {
                waiters[id]?.best = LocationRequest.better(waiter.best, fix)
            }
        }
        // Yielded after the lock is released: a yield resumes the consumer's
        // task (taking its status lock) while a consumer being cancelled
        // holds that lock and waits for this one in `removeWatcher`.
        // Yielding under the lock deadlocked the two (seen at shutdown).
        let (due, observers) = watchers.withLock { watchers in
            var due: [AsyncThrowingStream<LocationFix, any Error>.Continuation] = []
            for (id, watcher) in watchers.byID where watcher.options.shouldDeliver(fix, after: watcher.lastDelivered) {
                watchers.byID[id]?.lastDelivered = fix
                due.append(watcher.continuation)
            }
            return (due, Array(watchers.observers.values))
        }
        for observer in observers { observer(fix) }
        for continuation in due { continuation.yield(fix) }
    }

    private func failWaitersOnOutage() {
        let pending = waiters
        waiters.removeAll()
        for (_, waiter) in pending {
            if let best = waiter.best {
                waiter.continuation.resume(returning: .success(best))
            } else {
                waiter.continuation.resume(returning: .failure(.sourceUnavailable))
            }
        }
    }
}
