import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol

/// Talks to `petspot-locationd` over its Unix socket; itself a
/// ``LocationService``, so code written against the protocol runs the same
/// on the daemon, the mock or a static position.
///
/// One client holds one connection (opened on first use, reopened after the
/// daemon restarts): an "allow once" decision lasts as long as it does.
public final class LocationClient: LocationService, Sendable {
    /// The default socket path.
    public static let defaultSocketPath = "/run/petspot/locationd.sock"
    /// Extra time granted beyond a request's own timeout before the client
    /// gives up on a silent daemon.
    public static let responseMargin: Duration = .seconds(5)
    /// How long the other calls (status, reset; not `authorization.request`,
    /// which may wait for a prompt) wait for an answer.
    public static let answerLimit: Duration = .seconds(15)

    private let connection: DaemonConnection
    private let margin: Duration
    private let limit: Duration

    /// Creates a client for the daemon at `socketPath`. Nothing is opened yet.
    /// - Parameters:
    ///   - answerLimit: how long a call waits for its answer before it ends
    ///     with `daemonUnreachable` (and the connection is closed).
    ///   - responseMargin: the same for `location.get`, beyond the request's own timeout.
    public init(
        socketPath: String = LocationClient.defaultSocketPath, answerLimit: Duration = LocationClient.answerLimit,
        responseMargin: Duration = LocationClient.responseMargin
    ) {
        connection = DaemonConnection(socketPath: socketPath)
        self.limit = answerLimit
        self.margin = responseMargin
    }

    public func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix {
        let result = try await call(
            .locationGet, params: RPCParams.encode(request), within: request.timeout + margin)
        do {
            return try WireCoding.decodeFix(result)
        } catch {
            throw .internalError(error.message)
        }
    }

    public func updates(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error> {
        let connection = self.connection
        let (stream, continuation) = AsyncThrowingStream<LocationFix, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(16))
        let start = Task { await connection.watch(options, into: continuation) }
        continuation.onTermination = { _ in start.cancel() }
        return stream
    }

    public func authorizationStatus() async throws(LocationError) -> AuthorizationState {
        try decodeAuthorization(await call(.authorizationStatus, params: nil))
    }

    public func requestAuthorization(accuracy: AccuracyAuthorization) async throws(LocationError)
        -> AuthorizationState
    {
        // A prompt may take as long as the daemon's prompt_timeout (up to an hour).
        try decodeAuthorization(
            await call(.authorizationRequest, params: ["accuracy": .string(accuracy.rawValue)], within: .seconds(3700)))
    }

    /// `daemon.status` as sent.
    public func daemonStatus() async throws(LocationError) -> JSONValue {
        try await call(.daemonStatus, params: nil)
    }

    /// `authorization.reset` for `uid` (admins only).
    public func resetAuthorization(uid: UInt32) async throws(LocationError) {
        _ = try await call(.authorizationReset, params: ["uid": .number(Double(uid))])
    }

    /// Closes the connection; the next call opens a new one.
    public func close() async { await connection.close() }

    private func decodeAuthorization(_ value: JSONValue) throws(LocationError) -> AuthorizationState {
        do {
            return try WireCoding.decodeAuthorization(value)
        } catch {
            throw .internalError(error.message)
        }
    }

    /// A call bounded in time, so a wedged daemon can never hang a client.
    private func call(_ method: RPCMethod, params: JSONValue?, within bound: Duration? = nil)
        async throws(LocationError) -> JSONValue
    {
        let connection = self.connection
        let limit = bound ?? self.limit
        let outcome: Result<JSONValue, LocationError> = await withDeadline(.now + limit) {
            await connection.close()
            return .failure(.daemonUnreachable("no answer from the daemon within \(limit)"))
        } operation: {
            do throws(LocationError) {
                return .success(try await connection.call(method, params: params))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}
