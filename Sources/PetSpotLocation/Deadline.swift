/// Runs `operation` until it returns or `deadline` passes, whichever is first.
///
/// At the deadline `whenPassed` runs. It either returns the value that ends
/// the race at once (the operation is then cancelled), or `nil` after making
/// the operation end by itself (e.g. by finishing the wait it is in), in
/// which case the operation's own value is returned. An operation that
/// returns first cancels the timer, which then runs nothing.
///
/// The one deadline race of the package: a `location.get` waiting for a fix,
/// a prompt waiting for the agent, a client waiting for the daemon.
package func withDeadline<Value: Sendable>(
    _ deadline: ContinuousClock.Instant,
    whenPassed: @escaping @Sendable () async -> Value?,
    operation: @escaping @Sendable () async -> Value
) async -> Value {
    await withTaskGroup(of: Value?.self) { group in
        group.addTask { await operation() }
        group.addTask {
            guard (try? await Task.sleep(until: deadline, clock: .continuous)) != nil else { return nil }
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
