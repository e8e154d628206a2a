import NIOConcurrencyHelpers
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
    /// The newest kept ``AccessGrant`` (``Dispatcher/answerAtOnce(_:session:)``).
    private nonisolated let keptGrant = NIOLockedValueBox<AccessGrant?>(nil)
    private let maxSubscriptions: Int
    private let maxInFlight: Int
    private var nextSubscription = 0
    private var subscriptions: [Int: Subscription] = [:]

    private struct Subscription {
        /// Finishes the stream that stops a subscription's own tasks.
        var stop: AsyncStream<Void>.Continuation
        /// Ends a subscription that runs without tasks (``activate(_:start:onEnd:)``).
        var onEnd: (@Sendable () -> Void)?
    }
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
        subscriptions[nextSubscription] = Subscription(stop: continuation)
        return (nextSubscription, stop)
    }

    /// Starts subscription `number` if it is still open: runs `start` and
    /// keeps `onEnd` for when it closes (unwatch, disconnect, lost
    /// authorization). Nothing runs when it closed first, so a watch ended
    /// before it started never starts.
    /// - Returns: whether it started.
    @discardableResult
    public func activate(
        _ number: Int, start: @Sendable () -> Void, onEnd: @escaping @Sendable () -> Void
    ) -> Bool {
        guard subscriptions[number] != nil else { return false }
        start()
        subscriptions[number]?.onEnd = onEnd
        return true
    }

    /// Stops subscription `number`; `false` when it does not exist.
    @discardableResult
    public func closeSubscription(_ number: Int) -> Bool {
        guard let subscription = subscriptions.removeValue(forKey: number) else { return false }
        subscription.stop.finish()
        subscription.onEnd?()
        return true
    }

    /// Stops every subscription (the client went away).
    public func close() {
        closed = true
        let ending = subscriptions.values
        subscriptions.removeAll()
        for subscription in ending {
            subscription.stop.finish()
            subscription.onEnd?()
        }
    }

    /// Keeps `grant` for answers given at once, when it can be kept.
    public nonisolated func keep(_ grant: AccessGrant) {
        guard grant.generation != nil else { return }
        keptGrant.withLockedValue { $0 = grant }
    }

    /// The kept grant, when it was decided under `generation` (still valid).
    public nonisolated func grant(valid generation: UInt64?) -> AccessGrant? {
        guard let generation else { return nil }
        return keptGrant.withLockedValue { $0?.generation == generation ? $0 : nil }
    }

    /// Subscriptions open now.
    public var subscriptionCount: Int { subscriptions.count }
}
