/// Counts connected clients and their watches, enforcing `max_clients`.
public actor ClientRegistry {
    /// Most simultaneous clients.
    public nonisolated let capacity: Int
    public private(set) var clients = 0
    public private(set) var watchers = 0
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
    public func watchStarted() { watchers += 1 }

    /// A watch ended.
    public func watchEnded() { watchers -= 1 }
}
