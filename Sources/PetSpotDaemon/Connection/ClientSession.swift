import PetSpotJSON
import PetSpotLocation
import Synchronization

/// Who a connection is and what it holds beyond its requests: its
/// subscriptions, its agent role. Requests in flight and
/// everything written belong to the connection's handler
/// (``ConnectionHandler``), on its event loop.
///
/// Shared between that loop and the tasks that answer the connection's
/// slower requests, so its state sits behind one `Mutex`; no work waits
/// under it (the concurrency rule of docs/ARCHITECTURE.md).
/// A subscription ends through the handler it was activated with, so
/// `location.unwatch`, a lost authorization and a disconnect all end it the
/// same way, without tasks.
public final class ClientSession: Sendable {
    public let id: ConnectionID
    public let identity: ClientIdentity
    /// ``identity`` as its audit records' `client` member, serialized once
    /// (``AuditRecord/jsonLine(client:)``).
    public let auditClient: [UInt8]
    /// Where ``WatchFanOut`` writes this connection's updates; `nil` when
    /// the transport has none (it then cannot watch).
    public let updateOutlet: LoopBoundOutlet?
    /// Queues a message on the connection without waiting for the client to
    /// read it (a `location.error`, a prompt to the agent: a stuck client
    /// must never hold up the daemon); `nil` without a transport.
    public let post: (@Sendable (JSONValue) -> Void)?
    private let maxSubscriptions: Int
    private let state = Mutex(State())

    private struct State {
        var nextSubscription = 0
        /// Open subscriptions, each with what ends it once activated (``activate(_:start:onEnd:)``).
        var subscriptions: [Int: (@Sendable () -> Void)?] = [:]
        var isAgent = false
        var closed = false
    }

    public init(
        id: ConnectionID, identity: ClientIdentity, maxSubscriptions: Int = 32,
        updateOutlet: LoopBoundOutlet? = nil, post: (@Sendable (JSONValue) -> Void)? = nil
    ) {
        self.post = post
        self.id = id
        self.updateOutlet = updateOutlet
        self.identity = identity
        self.auditClient = AuditRecord.clientObject(identity)
        self.maxSubscriptions = maxSubscriptions
        ConnectionCensus.sessions.wrappingAdd(1, ordering: .relaxed)
    }

    deinit { ConnectionCensus.sessions.wrappingSubtract(1, ordering: .relaxed) }

    /// Opens a subscription: its number, `nil` past the limit or once closed.
    public func openSubscription() -> Int? {
        state.withLock { state in
            guard !state.closed, state.subscriptions.count < maxSubscriptions else { return nil }
            state.nextSubscription += 1
            state.subscriptions[state.nextSubscription] = .some(nil)
            return state.nextSubscription
        }
    }

    /// Starts subscription `number` if it is still open: runs `start` and
    /// keeps `onEnd` for when it closes (unwatch, disconnect, lost
    /// authorization). Nothing runs when it closed first, so a watch ended
    /// before it started never starts. `start` runs under the session's
    /// lock (it only registers the watch), so a close cannot fall between
    /// it and keeping `onEnd`.
    /// - Returns: whether it started.
    @discardableResult
    public func activate(_ number: Int, start: () -> Void, onEnd: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard state.subscriptions[number] != nil else { return false }
            start()
            state.subscriptions[number] = onEnd
            return true
        }
    }

    /// Stops subscription `number`; `false` when it does not exist.
    @discardableResult
    public func closeSubscription(_ number: Int) -> Bool {
        let ended = state.withLock { $0.subscriptions.removeValue(forKey: number) }
        guard let onEnd = ended else { return false }
        onEnd?()
        return true
    }

    /// Stops every subscription (the client went away); none opens again.
    public func close() {
        let ending = state.withLock { state in
            state.closed = true
            defer { state.subscriptions.removeAll() }
            return Array(state.subscriptions.values)
        }
        for onEnd in ending { onEnd?() }
    }

    /// The connection became the prompt agent: never idle from now on.
    public func becameAgent() { state.withLock { $0.isAgent = true } }

    /// Whether no watch is open and the connection is not the prompt agent.
    public var holdsNothing: Bool { state.withLock { $0.subscriptions.isEmpty && !$0.isAgent } }

    /// Subscriptions open now.
    public var subscriptionCount: Int { state.withLock { $0.subscriptions.count } }
}
