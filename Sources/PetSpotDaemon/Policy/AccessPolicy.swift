import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol

/// The seam where permission is decided for a connected client.
///
/// The daemon asks it before every location answer, on the connection's
/// event loop: ``grant(for:connection:)`` is synchronous (one lock, nothing
/// waits), so nothing is cached beside it and a change is seen by the very
/// next request. ``PolicyEngine`` implements rules, prompts and remembered
/// decisions behind it, and ``OpenAccess`` authorizes everyone. Every
/// requirement is implemented by each policy: none has a default.
public protocol AuthorizationPort: Sendable {
    /// The client's authorization now, with how fixes are shown to it
    /// (`authorization.status`, and every location answer). Synchronous:
    /// the rules and one lookup, under one lock.
    func grant(for client: ClientIdentity, connection: ConnectionID) -> AccessGrant
    /// Resolves `authorization.request` (it may wait for the prompt agent).
    func request(
        for client: ClientIdentity, connection: ConnectionID, accuracy: AccuracyAuthorization
    ) async throws(LocationError) -> AuthorizationState
    /// `authorization.reset`: forgets the decision remembered for `uid`.
    /// - Throws: `forbidden` unless `client` is an administrator.
    func reset(uid: UInt32, by client: ClientIdentity) async throws(LocationError)
    /// The connection closed: its allow-once grants (and agent role) end.
    func connectionClosed(_ connection: ConnectionID) async
    /// A stream that yields whenever authorizations may have changed for
    /// clients already connected (reload, reset); watchers re-check on it.
    func authorizationChanges() -> AsyncStream<Void>
    /// The remembered decisions' state for `daemon.status` (no uids, no
    /// decisions): `nil` for a policy that remembers nothing.
    func decisionsStatus() -> JSONValue?
}

/// The seam of the prompt-agent protocol (SPEC §5): who may be the agent,
/// its registration, its answers.
public protocol PromptAgentPort: Sendable {
    /// `agent.register`: makes this connection the prompt agent.
    /// - Parameter send: writes a message to the agent's connection.
    /// - Throws: `forbidden` unless `client` may be an agent.
    func registerAgent(
        _ client: ClientIdentity, connection: ConnectionID, send: @escaping MessageSink)
        async throws(LocationError)
    /// A response arrived on `connection` (an agent answering `agent.prompt`).
    func received(_ response: RPCResponse, connection: ConnectionID) async
    /// Whether `client` may register as the prompt agent: such clients are
    /// not held to a uid's share of `max_clients` and may use the slots kept
    /// for them (``ClientRegistry``).
    func mayBePromptAgent(_ client: ClientIdentity) async -> Bool
}

/// What the daemon's server and dispatcher take: both ports.
public typealias AccessPolicy = AuthorizationPort & PromptAgentPort

/// A client's authorization as decided now (``AuthorizationPort/grant(for:connection:)``):
/// never kept, judged again for every request.
public struct AccessGrant: Sendable, Equatable {
    public var state: AuthorizationState
    /// How fixes are shown to the client, when it is authorized.
    public var presentation: FixPresentation?

    public init(state: AuthorizationState, presentation: FixPresentation?) {
        self.state = state
        self.presentation = presentation
    }
}

/// Everyone is authorized with full accuracy: the behaviour before a
/// policy is configured, and for tests of the transport.
public struct OpenAccess: AccessPolicy {
    public init() {}

    /// Authorized, full accuracy, shown as it is.
    public func grant(for client: ClientIdentity, connection: ConnectionID) -> AccessGrant {
        AccessGrant(
            state: AuthorizationState(status: .authorized, accuracy: .full, decidedBy: .default, client: client),
            presentation: .full)
    }

    /// Nobody is asked: the grant as it is.
    public func request(
        for client: ClientIdentity, connection: ConnectionID, accuracy: AccuracyAuthorization
    ) async throws(LocationError) -> AuthorizationState {
        grant(for: client, connection: connection).state
    }

    /// Nobody administers an open daemon: always `forbidden`.
    public func reset(uid: UInt32, by client: ClientIdentity) async throws(LocationError) { throw .forbidden }

    /// Nobody is asked: always `forbidden`.
    public func registerAgent(
        _ client: ClientIdentity, connection: ConnectionID, send: @escaping MessageSink
    )
        async throws(LocationError)
    { throw .forbidden }

    public func received(_ response: RPCResponse, connection: ConnectionID) async {}

    /// Nobody may be the prompt agent.
    public func mayBePromptAgent(_ client: ClientIdentity) async -> Bool { false }

    public func connectionClosed(_ connection: ConnectionID) async {}

    /// Never yields: nothing changes.
    public func authorizationChanges() -> AsyncStream<Void> { AsyncStream { _ in } }

    /// Nothing is remembered.
    public func decisionsStatus() -> JSONValue? { nil }
}
