import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol

/// The seam where permission is decided for a connected client.
///
/// The daemon asks it before every location answer; ``PolicyEngine``
/// implements rules, prompts and remembered decisions behind it, and
/// ``OpenAccess`` authorizes everyone.
public protocol AuthorizationPort: Sendable {
    /// The client's current authorization.
    func status(for client: ClientIdentity, connection: ConnectionID) async -> AuthorizationState
    /// Resolves `authorization.request`.
    func request(
        for client: ClientIdentity, connection: ConnectionID, accuracy: AccuracyAuthorization
    ) async throws(LocationError) -> AuthorizationState
    /// How fixes are shown to a client granted `accuracy` (reduced accuracy snapping).
    func presentation(for accuracy: AccuracyAuthorization) async -> FixPresentation
    /// `authorization.reset`: forgets the decision remembered for `uid`.
    /// - Throws: `forbidden` unless `client` is an administrator.
    func reset(uid: UInt32, by client: ClientIdentity) async throws(LocationError)
    /// The connection closed: its allow-once grants (and agent role) end.
    func connectionClosed(_ connection: ConnectionID) async
    /// A stream that yields whenever authorizations may have changed for
    /// clients already connected (reload, reset); watchers re-check on it.
    func authorizationChanges() async -> AsyncStream<Void>
    /// The client's authorization with what it shows, and the policy's
    /// ``grantGeneration`` it was decided under.
    func grant(for client: ClientIdentity, connection: ConnectionID) async -> AccessGrant
    /// A number that changes before any decision can change (reload,
    /// remembered decision, reset, allow-once): a grant decided under the
    /// current number is still valid. `nil`: grants cannot be kept.
    var grantGeneration: UInt64? { get }
    /// The remembered decisions' state for `daemon.status` (no uids, no
    /// decisions): `nil` for a policy that remembers nothing.
    func decisionsStatus() async -> JSONValue?
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

/// A client's authorization as decided once, kept by its connection so a
/// `location.get` answered at once (on the connection's event loop, see
/// ``Dispatcher/answer(_:session:reusing:)``) need not ask the policy again
/// while the policy's ``AuthorizationPort/grantGeneration`` stays the same.
public struct AccessGrant: Sendable, Equatable {
    public var state: AuthorizationState
    /// How fixes are shown to the client, when it is authorized.
    public var presentation: FixPresentation?
    /// The policy's generation the grant was decided under; `nil`: not to be kept.
    public var generation: UInt64?

    public init(state: AuthorizationState, presentation: FixPresentation?, generation: UInt64?) {
        self.state = state
        self.presentation = presentation
        self.generation = generation
    }
}

extension AuthorizationPort {
    /// A grant that is never kept: ``status(for:connection:)`` and ``presentation(for:)``.
    public func grant(for client: ClientIdentity, connection: ConnectionID) async -> AccessGrant {
        let state = await status(for: client, connection: connection)
        let presentation = state.status == .authorized ? await presentation(for: state.accuracy ?? .full) : nil
        return AccessGrant(state: state, presentation: presentation, generation: nil)
    }

    public var grantGeneration: UInt64? { nil }

    public func decisionsStatus() async -> JSONValue? { nil }
}

extension PromptAgentPort {
    public func mayBePromptAgent(_ client: ClientIdentity) async -> Bool { false }
}

/// Everyone is authorized with full accuracy: the behaviour before a
/// policy is configured, and for tests of the transport.
public struct OpenAccess: AccessPolicy {
    public init() {}

    public func status(for client: ClientIdentity, connection: ConnectionID) async -> AuthorizationState {
        AuthorizationState(status: .authorized, accuracy: .full, decidedBy: .default, client: client)
    }

    public func request(
        for client: ClientIdentity, connection: ConnectionID, accuracy: AccuracyAuthorization
    ) async throws(LocationError) -> AuthorizationState {
        await status(for: client, connection: connection)
    }

    public func presentation(for accuracy: AccuracyAuthorization) async -> FixPresentation { .full }

    /// Nobody administers an open daemon: always `forbidden`.
    public func reset(uid: UInt32, by client: ClientIdentity) async throws(LocationError) { throw .forbidden }

    /// Nobody is asked: always `forbidden`.
    public func registerAgent(
        _ client: ClientIdentity, connection: ConnectionID, send: @escaping MessageSink
    )
        async throws(LocationError)
    { throw .forbidden }

    public func received(_ response: RPCResponse, connection: ConnectionID) async {}

    public func connectionClosed(_ connection: ConnectionID) async {}

    /// Never yields: nothing changes.
    public func authorizationChanges() async -> AsyncStream<Void> { AsyncStream { _ in } }

    public func grant(for client: ClientIdentity, connection: ConnectionID) async -> AccessGrant {
        AccessGrant(state: await status(for: client, connection: connection), presentation: .full, generation: 0)
    }

    /// Nothing ever changes.
    public var grantGeneration: UInt64? { 0 }
}
