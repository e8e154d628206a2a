import PetSpotLocation

/// The seam where permission is decided for a connected client.
///
/// The daemon asks it before every location answer; the policy issue
/// implements rules, prompts and remembered decisions behind it.
public protocol AccessPolicy: Sendable {
    /// The client's current authorization.
    func status(for client: ClientIdentity, connection: ConnectionID) async -> AuthorizationState
    /// Resolves `authorization.request`.
    func request(
        for client: ClientIdentity, connection: ConnectionID, accuracy: AccuracyAuthorization
    ) async throws(LocationError) -> AuthorizationState
    /// Transforms a fix for a client with the given accuracy (reduced accuracy snapping).
    func present(_ fix: LocationFix, accuracy: AccuracyAuthorization) -> LocationFix
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

    public func present(_ fix: LocationFix, accuracy: AccuracyAuthorization) -> LocationFix { fix }
}
