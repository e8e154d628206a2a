import Synchronization

/// What moves whenever an authorization may have changed: the generation
/// number that kept grants are checked against (``AuthorizationPort/grantGeneration``)
/// and the watchers to wake so they re-check.
///
/// Locks rather than an actor: the generation is read on every request's
/// event loop, and an ended watcher's stream removes itself at once (its
/// termination handler is synchronous), so no wake-up is spent pruning it.
final class AuthorizationChanges: Sendable {
    private let generation = Mutex<UInt64>(0)
    private let observers = Mutex<Observers>(Observers())

    private struct Observers {
        var nextID: UInt64 = 0
        var byID: [UInt64: AsyncStream<Void>.Continuation] = [:]
    }

    /// The generation now.
    var current: UInt64 { generation.withLock { $0 } }

    /// Moves the generation on: call it *before* any change of what a
    /// status can answer, so a grant decided under the old number is not
    /// kept past the change.
    func advance() { generation.withLock { $0 &+= 1 } }

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

    /// Wakes every subscriber to re-check its authorization.
    func notify() {
        let continuations = observers.withLock { Array($0.byID.values) }
        for continuation in continuations { continuation.yield(()) }
    }

    /// Subscribers not ended.
    var observerCount: Int { observers.withLock { $0.byID.count } }
}
