import Synchronization

/// The watchers to wake whenever an authorization may have changed, so
/// they re-check (``AuthorizationPort/authorizationChanges()``).
///
/// A lock rather than an actor: an ended watcher's stream removes itself at
/// once (its termination handler is synchronous), so no wake-up is spent
/// pruning it.
final class AuthorizationChanges: Sendable {
    private let observers = Mutex<Observers>(Observers())

    private struct Observers {
        var nextID: UInt64 = 0
        var byID: [UInt64: AsyncStream<Void>.Continuation] = [:]
    }

    /// A stream that yields (newest-only) after each ``notify()``; it leaves
    /// the observers when its consumer ends.
    func subscribe() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = observers.withLock { observers in
            observers.nextID &+= 1
            observers.byID[observers.nextID] = continuation
            return observers.nextID
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.observers.withLock { $0.byID.removeValue(forKey: id) }
        }
        return stream
    }

    /// Wakes every subscriber to re-check its authorization: call it
    /// *after* the change, so a re-check sees it.
    func notify() {
        let continuations = observers.withLock { Array($0.byID.values) }
        for continuation in continuations { continuation.yield(()) }
    }

    /// Subscribers not ended.
    var observerCount: Int { observers.withLock { $0.byID.count } }
}
