import NIOConcurrencyHelpers
import PetSpotJSON
import PetSpotLocation
import Synchronization

/// The state of one connection: who it is, its subscriptions, its
/// requests in flight. A subscription ends through the handler it was
/// activated with, so `location.unwatch` and disconnects end it without
/// unstructured tasks.
public actor ClientSession {
    public nonisolated let id: ConnectionID
    public nonisolated let identity: ClientIdentity
    /// ``identity`` as its audit records' `client` member, serialized once
    /// (``AuditRecord/jsonLine(client:)``).
    public nonisolated let auditClient: [UInt8]
    /// Where ``WatchFanOut`` writes this connection's updates; `nil` when
    /// the transport has none (it then cannot watch).
    public nonisolated let updateOutlet: LoopBoundOutlet?
    /// Queues a message on the connection without waiting for the client to
    /// read it (messages to a prompt agent: a stuck agent must never hold up
    /// the daemon or its replacement); `nil` without a transport.
    public nonisolated let post: (@Sendable (JSONValue) -> Void)?
    /// The newest kept ``AccessGrant`` (``Dispatcher/answerAtOnce(_:session:)``).
    private nonisolated let keptGrant = NIOLockedValueBox<AccessGrant?>(nil)
    private let maxSubscriptions: Int
    private let maxInFlight: Int
    private var nextSubscription = 0
    /// Open subscriptions, each with what ends it once activated (``activate(_:start:onEnd:)``).
    private var subscriptions: [Int: (@Sendable () -> Void)?] = [:]
    private var inFlight = 0
    /// Requests held, subscriptions open and the agent role, mirrored for
    /// ``isIdle`` (read on the connection's event loop, without the actor).
    private nonisolated let activity = Atomic<Int>(0)
    /// The read loop, waiting for a request slot (there is one read loop per connection).
    private var slotWaiter: CheckedContinuation<Void, Never>?
    private var closed = false

    public init(
        id: ConnectionID, identity: ClientIdentity, maxSubscriptions: Int = 32, maxInFlight: Int = 64,
        updateOutlet: LoopBoundOutlet? = nil, post: (@Sendable (JSONValue) -> Void)? = nil
    ) {
        self.post = post
        self.id = id
        self.updateOutlet = updateOutlet
        self.identity = identity
        self.auditClient = AuditRecord.clientObject(identity)
        self.maxSubscriptions = maxSubscriptions
        self.maxInFlight = maxInFlight
    }

    /// Reserves a slot for a request, waiting while `maxInFlight` requests
    /// are held (answered or not: a slot is released only once its answer is
    /// written). While the read loop waits here it reads nothing, so a client
    /// that sends without reading meets backpressure instead of making the
    /// daemon hold its answers (SPEC §5).
    public func beginRequest() async {
        activity.add(1, ordering: .relaxed)
        guard inFlight >= maxInFlight else {
            inFlight += 1
            return
        }
        await withCheckedContinuation { slotWaiter = $0 }
    }

    /// Releases a request slot (to the waiting read loop, if any).
    public func endRequest() {
        activity.subtract(1, ordering: .relaxed)
        if let waiter = slotWaiter {
            slotWaiter = nil
            waiter.resume()
        } else {
            inFlight -= 1
        }
    }

    /// Requests held now (in flight, or answered and not yet written).
    public var requestsInFlight: Int { inFlight }

    /// Opens a subscription: its number, `nil` past the limit or once closed.
    public func openSubscription() -> Int? {
        guard !closed, subscriptions.count < maxSubscriptions else { return nil }
        nextSubscription += 1
        subscriptions[nextSubscription] = .some(nil)
        activity.add(1, ordering: .relaxed)
        return nextSubscription
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
        subscriptions[number] = onEnd
        return true
    }

    /// Stops subscription `number`; `false` when it does not exist.
    @discardableResult
    public func closeSubscription(_ number: Int) -> Bool {
        guard let onEnd = subscriptions.removeValue(forKey: number) else { return false }
        activity.subtract(1, ordering: .relaxed)
        onEnd?()
        return true
    }

    /// Stops every subscription (the client went away).
    public func close() {
        closed = true
        let ending = subscriptions.values
        activity.subtract(ending.count, ordering: .relaxed)
        subscriptions.removeAll()
        for onEnd in ending { onEnd?() }
    }

    /// The connection became the prompt agent: never idle from now on.
    public nonisolated func becameAgent() { activity.add(1, ordering: .relaxed) }

    /// Whether nothing is in flight, no watch is open and the connection is
    /// not the prompt agent: then an idle connection may be closed.
    public nonisolated var isIdle: Bool { activity.load(ordering: .relaxed) == 0 }

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
