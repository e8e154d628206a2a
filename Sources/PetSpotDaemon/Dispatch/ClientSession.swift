import PetSpotLocation

/// The state of one connection: who it is, its subscriptions, its
/// requests in flight. Each subscription is stopped through its own signal
/// stream so `location.unwatch` and disconnects end it without unstructured tasks.
public actor ClientSession {
    public nonisolated let id: ConnectionID
    public nonisolated let identity: ClientIdentity
    /// Where ``WatchFanOut`` writes this connection's updates; `nil` when
    /// the transport has none (updates then go through the message sink).
    public nonisolated let updateOutlet: LoopBoundOutlet?
    private let maxSubscriptions: Int
    private let maxInFlight: Int
    private var nextSubscription = 0
    private var subscriptions: [Int: AsyncStream<Void>.Continuation] = [:]
    private var inFlight = 0
    private var closed = false

    public init(
        id: ConnectionID, identity: ClientIdentity, maxSubscriptions: Int = 32, maxInFlight: Int = 64,
        updateOutlet: LoopBoundOutlet? = nil
    ) {
        self.id = id
        self.updateOutlet = updateOutlet
        self.identity = identity
        self.maxSubscriptions = maxSubscriptions
        self.maxInFlight = maxInFlight
    }

    /// Reserves a slot for a request; `false` when too many are in flight.
    public func beginRequest() -> Bool {
        guard inFlight < maxInFlight else { return false }
        inFlight += 1
        return true
    }

    /// Releases a request slot.
    public func endRequest() { inFlight -= 1 }

    /// Opens a subscription: its number and the stream that finishes when it must stop.
    public func openSubscription() -> (Int, AsyncStream<Void>)? {
        guard !closed, subscriptions.count < maxSubscriptions else { return nil }
        nextSubscription += 1
        let (stop, continuation) = AsyncStream<Void>.makeStream()
        subscriptions[nextSubscription] = continuation
        return (nextSubscription, stop)
    }

    /// Stops subscription `number`; `false` when it does not exist.
    @discardableResult
    public func closeSubscription(_ number: Int) -> Bool {
        guard let continuation = subscriptions.removeValue(forKey: number) else { return false }
        continuation.finish()
        return true
    }

    /// Stops every subscription (the client went away).
    public func close() {
        closed = true
        for continuation in subscriptions.values { continuation.finish() }
        subscriptions.removeAll()
    }

    /// Subscriptions open now.
    public var subscriptionCount: Int { subscriptions.count }
}
