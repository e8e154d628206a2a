import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol

/// The seam where permission is decided for a connected client.
///
/// The daemon asks it before every location answer; ``PolicyEngine``
/// implements rules, prompts and remembered decisions behind it, and
/// ``OpenAccess`` authorizes everyone.
public protocol AccessPolicy: Sendable {
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
    /// `agent.register`: makes this connection the prompt agent.
    /// - Parameter send: writes a message to the agent's connection.
    /// - Throws: `forbidden` unless `client` may be an agent.
    func registerAgent(_ client: ClientIdentity, connection: ConnectionID, send: @escaping MessageSink)
        async throws(LocationError)
    /// A response arrived on `connection` (an agent answering `agent.prompt`).
    func received(_ response: RPCResponse, connection: ConnectionID) async
    /// The connection closed: its allow-once grants and agent role end.
    func connectionClosed(_ connection: ConnectionID) async
    /// A stream that yields whenever authorizations may have changed for
    /// clients already connected (reload, reset); watchers re-check on it.
    func authorizationChanges() async -> AsyncStream<Void>
}

extension AccessPolicy {
    /// `fix` as a client granted `accuracy` may see it.
    public func present(_ fix: LocationFix, accuracy: AccuracyAuthorization) async -> LocationFix {
        await presentation(for: accuracy).apply(fix)
    }
}

/// Identifies one accepted connection for its lifetime.
public struct ConnectionID: Sendable, Hashable, CustomStringConvertible {
    public let rawValue: UInt64
    public init(_ rawValue: UInt64) { self.rawValue = rawValue }
    public var description: String { "#\(rawValue)" }
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
    public func registerAgent(_ client: ClientIdentity, connection: ConnectionID, send: @escaping MessageSink)
        async throws(LocationError)
    { throw .forbidden }

    public func received(_ response: RPCResponse, connection: ConnectionID) async {}

    public func connectionClosed(_ connection: ConnectionID) async {}

    /// Never yields: nothing changes.
    public func authorizationChanges() async -> AsyncStream<Void> { AsyncStream { _ in } }
}
