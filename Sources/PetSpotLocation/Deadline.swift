/// Runs `operation` until it returns or `deadline` passes, whichever is first.
///
/// At the deadline `whenPassed` runs. It either returns the value that ends
/// the race at once (the operation is then cancelled), or `nil` after making
/// the operation end by itself (e.g. by finishing the wait it is in), in
/// which case the operation's own value is returned. An operation that
/// returns first cancels the timer, which then runs nothing.
///
/// The one deadline race of the package: a `location.get` waiting for a fix,
/// a prompt waiting for the agent, a client waiting for the daemon. The
/// timer runs where `sleeper` schedules it (the daemon: its event loops).
package func withDeadline<Value: Sendable>(
    _ deadline: ContinuousClock.Instant,
    sleeper: Sleeper = .task,
    whenPassed: @escaping @Sendable () async -> Value?,
    operation: @escaping @Sendable () async -> Value
) async -> Value {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            guard (try? await sleeper.sleep(until: deadline)) != nil else { return nil }
            return await whenPassed()
        }
        while let next = await group.next() {
            if let value = next {
                group.cancelAll()
                return value
            }
        }
        // Only the operation's child can end the loop above with a value,
        // and it always returns one.
        preconditionFailure("withDeadline: the operation ended without a value")
    }
}

/// Where a component's timed waits are scheduled: its deadlines, tickers,
/// retry pauses and pings.
///
/// ``task`` is Swift concurrency's own `Task.sleep`, which on Linux is a
/// libdispatch timer whose job runs on dispatch's global pool: fine for a
/// client. The daemon passes its event loops' timers instead (see
/// `Sleeper.eventLoops` in PetSpotDaemon), so that nothing it does ever
/// reaches that pool: the pool's first worker starts a monitor that wakes
/// the process every second for good (docs/ARCHITECTURE.md, "Executors").
public struct Sleeper: Sendable {
    private let sleepUntil: @Sendable (ContinuousClock.Instant) async throws -> Void

    /// A sleeper that waits until the instant it is given, and throws
    /// `CancellationError` when the waiting task is cancelled.
    public init(_ sleepUntil: @escaping @Sendable (ContinuousClock.Instant) async throws -> Void) {
        self.sleepUntil = sleepUntil
    }

    /// `Task.sleep` on the continuous clock.
    public static let task = Sleeper { try await Task.sleep(until: $0, clock: .continuous) }

    /// Returns at `deadline` (at once when it has passed).
    /// - Throws: `CancellationError` when the calling task is cancelled first.
    public func sleep(until deadline: ContinuousClock.Instant) async throws {
        try await sleepUntil(deadline)
    }

    /// Returns after `duration`.
    /// - Throws: `CancellationError` when the calling task is cancelled first.
    public func sleep(for duration: Duration) async throws {
        try await sleepUntil(.now + duration)
    }
}
