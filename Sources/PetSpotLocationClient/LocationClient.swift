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
/// - Every request first gets written to the daemon, within ``sendLimit``
///   (connecting, if there is no connection, and writing the line); past
///   that it ends with `daemonUnreachable("sending the request … did not
///   finish …")`: the line was not written, or its write was not seen to
///   finish in time; either way a late answer is ignored.
/// - Then every call waits for its answer at most its limit, counted from
///   the write (``answerLimit``; for `location`, the request's timeout plus
///   ``responseMargin``; for `requestAuthorization`, 3700 s, past the
///   longest prompt), and a watch waits at most ``answerLimit`` for the
///   answer that starts it; past that it ends with
///   `daemonUnreachable("no answer from the daemon within …")`: the daemon
///   was asked. A busy machine that is slow to connect never uses up the
///   answer limit before the request is written.
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
/// - A watch survives a daemon restart (unless the client is made with
///   `resubscribe: false`): once its connection ends, it resubscribes with
///   the same options as soon as the socket answers again, retrying with a
///   growing pause (``resubscribePause``, doubling up to
///   ``resubscribePauseLimit``) for as long as its consumer iterates.
///   ``watch(_:)`` shows the gap (``WatchEvent/interrupted(_:)``, then
///   ``WatchEvent/resumed``); ``updates(_:)`` carries the fixes only. A
///   watch whose first subscription fails, a refusal on resubscribing, and
///   ``close()`` still end the stream with their error.
public final class LocationClient: LocationService, Sendable {
    /// The default socket path.
    public static let defaultSocketPath = DaemonSocket.defaultPath
    /// Extra time granted beyond a request's own timeout before the client
    /// gives up on a silent daemon.
    public static let responseMargin: Duration = .seconds(5)
    /// How long the other calls (status, reset; not `authorization.request`,
    /// which may wait for a prompt) and the start of a watch wait for an answer.
    public static let answerLimit: Duration = .seconds(15)
    /// How long a request may take to be written: connecting, when there is
    /// no connection yet, and writing its line.
    public static let sendLimit: Duration = .seconds(10)
    /// The first pause before a watch whose connection ended resubscribes;
    /// each failed try doubles it, up to ``resubscribePauseLimit``.
    public static let resubscribePause: Duration = .milliseconds(50)
    /// The longest pause between a resubscribing watch's tries.
    public static let resubscribePauseLimit: Duration = .seconds(2)

    private let connection: DaemonConnection
    private let margin: Duration
    private let limit: Duration
    private let sendLimit: Duration
    private let resubscribe: Bool

    /// Creates a client for the daemon at `socketPath`. Nothing is opened yet.
    /// - Parameters:
    ///   - answerLimit: how long a call, or a watch for the answer that
    ///     starts it, waits before it ends with `daemonUnreachable`. The
    ///     connection stays open (see the type's description).
    ///   - responseMargin: the same for `location.get`, beyond the request's own timeout.
    ///   - sendLimit: how long a request may take to be written (connecting included).
    ///   - resubscribe: whether a watch whose connection ends (a daemon
    ///     restart) subscribes again by itself; with false it ends with `daemonUnreachable`.
    public init(
        socketPath: String = LocationClient.defaultSocketPath, answerLimit: Duration = LocationClient.answerLimit,
        responseMargin: Duration = LocationClient.responseMargin, sendLimit: Duration = LocationClient.sendLimit,
        resubscribe: Bool = true
    ) {
        connection = DaemonConnection(socketPath: socketPath)
        self.limit = answerLimit
        self.margin = responseMargin
        self.sendLimit = sendLimit
        self.resubscribe = resubscribe
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

    /// A watch's fixes. The stream ends with `daemonUnreachable` when the
    /// daemon does not answer the `location.watch` within the answer limit;
    /// with the daemon's error when it refuses or later withdraws the watch;
    /// normally only when the consumer stops iterating (the subscription is
    /// then unwatched). A daemon restart does not end it (see the type's
    /// description): the fixes pause and go on; ``watch(_:)`` shows the gap.
    public func updates(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error> {
        let (stream, continuation) = AsyncThrowingStream<LocationFix, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(16))
        let run = startWatch(options) { event in
            if case .fix(let fix) = event { continuation.yield(fix) }
        } end: { error in
            continuation.finish(throwing: error)
        }
        continuation.onTermination = { _ in run.cancel() }
        return stream
    }

    /// A watch with its gaps shown: ``WatchEvent/fix(_:)`` for each update,
    /// ``WatchEvent/interrupted(_:)`` once when its connection ends (with
    /// the error the stream would have ended with), ``WatchEvent/resumed``
    /// once it is subscribed again. Ends as ``updates(_:)`` does.
    public func watch(_ options: WatchOptions) -> AsyncThrowingStream<WatchEvent, any Error> {
        let (stream, continuation) = AsyncThrowingStream<WatchEvent, any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(16))
        let run = startWatch(options) { event in
            continuation.yield(event)
        } end: { error in
            continuation.finish(throwing: error)
        }
        continuation.onTermination = { _ in run.cancel() }
        return stream
    }

    private func startWatch(
        _ options: WatchOptions, emit: @escaping @Sendable (WatchEvent) -> Void,
        end: @escaping @Sendable (LocationError?) -> Void
    ) -> Task<Void, Never> {
        let watch = ResubscribingWatch(
            connection: connection, options: options,
            limits: DaemonConnection.Limits(send: sendLimit, answer: limit), resubscribe: resubscribe,
            pause: Self.resubscribePause, pauseLimit: Self.resubscribePauseLimit)
        return Task { end(await watch.run(emit)) }
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
        let limits = DaemonConnection.Limits(send: sendLimit, answer: bound ?? limit)
        return try await connection.call(method, params: params, within: limits).get()
    }
}
