import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol

/// Talks to `petspot-locationd` over its Unix socket; itself a
/// ``LocationService``, so code written against the protocol runs the same
/// on the daemon, the mock or a static position.
///
/// One client holds one connection (opened on first use, reopened after the
/// daemon restarts): an "allow once" decision lasts as long as it does.
///
/// No call waits without a bound, and one request's trouble stays its own:
/// - Every call waits for its answer at most its limit (``answerLimit``;
///   for `location`, the request's timeout plus ``responseMargin``; for
///   `requestAuthorization`, 3700 s, past the longest prompt), and a watch
///   waits at most ``answerLimit`` for the answer that starts it; past that
///   it ends with `daemonUnreachable("no answer from the daemon within …")`.
/// - A call that times out fails alone: it is forgotten (a late answer is
///   ignored; a late watch's subscription is unwatched), and the connection
///   stays open, so the calls and watches in flight on it, and an "allow
///   once" grant tied to it, carry on. A slow answer does not show that the
///   connection is dead, and a new one would reach the same daemon. The
///   connection is given up only when it demonstrably is: the daemon closed
///   it, or a write to it failed. Whatever was waiting on it then ends with
///   `daemonUnreachable`, and the next call opens a new one; a call is never
///   written to a connection known to have ended.
/// - Cancelling the task that awaits a call ends the call at once with
///   `daemonUnreachable("cancelled")` (``LocationError`` has no case of its
///   own for it; the message is always exactly "cancelled"). The request is
///   forgotten as a timed-out one is; the connection stays open. A watch
///   ends when its consumer stops iterating.
public final class LocationClient: LocationService, Sendable {
    /// The default socket path.
    public static let defaultSocketPath = "/run/petspot/locationd.sock"
    /// Extra time granted beyond a request's own timeout before the client
    /// gives up on a silent daemon.
    public static let responseMargin: Duration = .seconds(5)
    /// How long the other calls (status, reset; not `authorization.request`,
    /// which may wait for a prompt) and the start of a watch wait for an answer.
    public static let answerLimit: Duration = .seconds(15)

    private let connection: DaemonConnection
    private let margin: Duration
    private let limit: Duration

    /// Creates a client for the daemon at `socketPath`. Nothing is opened yet.
    /// - Parameters:
    ///   - answerLimit: how long a call, or a watch for the answer that
    ///     starts it, waits before it ends with `daemonUnreachable`. The
    ///     connection stays open (see the type's description).
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

    /// A watch. The stream ends with `daemonUnreachable` when the daemon
    /// does not answer the `location.watch` within the answer limit, or when
    /// the connection ends; with the daemon's error when it refuses or later
    /// withdraws the watch; normally only when the consumer stops iterating
    /// (the subscription is then unwatched).
    public func updates(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error> {
        let connection = self.connection
        let limit = self.limit
        let (stream, continuation) = AsyncThrowingStream<LocationFix, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(16))
        let watch = WatchStream(continuation)
        let start = Task {
            let outcome = await withDeadline(.now + limit) {
                .failure(Self.noAnswer(within: limit))
            } operation: {
                await connection.watch(options, into: watch)
            }
            if case .failure(let error) = outcome { continuation.finish(throwing: error) }
        }
        continuation.onTermination = { _ in
            start.cancel()
            watch.ended()
        }
        return stream
    }

    public func authorizationStatus() async throws(LocationError) -> AuthorizationState {
        try decodeAuthorization(await call(.authorizationStatus, params: nil))
    }

    public func requestAuthorization(
        accuracy: AccuracyAuthorization
    ) async throws(LocationError)
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

    /// Closes the connection: the calls and watches on it end with
    /// `daemonUnreachable`; the next call opens a new one.
    public func close() async { await connection.close() }

    private func decodeAuthorization(_ value: JSONValue) throws(LocationError) -> AuthorizationState {
        do {
            return try WireCoding.decodeAuthorization(value)
        } catch {
            throw .internalError(error.message)
        }
    }

    /// A call bounded in time, so a wedged daemon can never hang a client.
    /// Past the limit the request is forgotten (see the type's description).
    private func call(
        _ method: RPCMethod, params: JSONValue?, within bound: Duration? = nil
    )
        async throws(LocationError) -> JSONValue
    {
        let connection = self.connection
        let limit = bound ?? self.limit
        let outcome: Result<JSONValue, LocationError> = await withDeadline(.now + limit) {
            // Ends the race at once: the wait is cancelled, which forgets the request.
            .failure(Self.noAnswer(within: limit))
        } operation: {
            await connection.call(method, params: params)
        }
        return try outcome.get()
    }

    private static func noAnswer(within limit: Duration) -> LocationError {
        .daemonUnreachable("no answer from the daemon within \(limit)")
    }
}
