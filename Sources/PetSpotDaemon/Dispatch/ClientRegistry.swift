import Synchronization

/// Counts connected clients and their watches, enforcing `max_clients`.
public actor ClientRegistry {
    /// Most simultaneous clients.
    public nonisolated let capacity: Int
    public private(set) var clients = 0
    /// Watches open now (counted without the actor: a watch can end in a
    /// synchronous handler, see ``ClientSession/activate(_:start:onEnd:)``).
    public nonisolated var watchers: Int { watchCount.load(ordering: .relaxed) }
    private nonisolated let watchCount = Atomic<Int>(0)
    private var nextConnection: UInt64 = 0

    public init(capacity: Int) { self.capacity = capacity }

    /// Admits a new client; `nil` when the daemon is full.
    public func admit() -> ConnectionID? {
        guard clients < capacity else { return nil }
        clients += 1
        nextConnection += 1
        return ConnectionID(nextConnection)
    }

    /// A client left.
    public func release() { clients -= 1 }

    /// A watch started.
    public nonisolated func watchStarted() { watchCount.add(1, ordering: .relaxed) }

    /// A watch ended.
    public nonisolated func watchEnded() { watchCount.subtract(1, ordering: .relaxed) }
}
