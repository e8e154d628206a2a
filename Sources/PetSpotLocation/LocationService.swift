/// Anything that can answer "where is this device?".
///
/// Implemented by the gpsd source, the static source, the scriptable mock
/// and the daemon client. Errors thrown are always ``LocationError``.
public protocol LocationService: Sendable {
    /// One position, with the semantics of `location.get`: a fix received
    /// within `request.maxAge` answers at once; otherwise the first new fix
    /// that meets the request, or at the timeout the best one seen.
    ///
    /// - Throws: ``LocationError`` — `locationUnknown` when no valid fix was
    ///   seen in time, `sourceUnavailable` when the source is down, or an
    ///   authorization error.
    func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix

    /// A stream of fixes filtered by `options`. Ends by throwing a
    /// ``LocationError`` when authorization is lost; ends normally when the
    /// consumer stops iterating.
    func updates(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error>

    /// The caller's current authorization.
    func authorizationStatus() async throws(LocationError) -> AuthorizationState

    /// Asks for authorization when it was never decided; otherwise returns
    /// the current state unchanged.
    func requestAuthorization(accuracy: AccuracyAuthorization) async throws(LocationError) -> AuthorizationState
}

/// Counters and state of a position source, for `daemon.status`.
/// Holds no coordinates.
public struct SourceStatus: Sendable, Hashable, Codable {
    public var kind: FixSourceKind
    /// Whether the source is reachable now.
    public var connected: Bool
    /// The device path, when the source knows it.
    public var device: String?
    /// Seconds since the last valid fix was received.
    public var lastFixAge: Double?
    /// Valid fixes received.
    public var fixes: Int
    /// Reports dropped (invalid coordinates, below min mode, other device).
    public var rejected: Int
    /// Successful reconnections since start.
    public var reconnects: Int
    /// The fallback kind, when one is configured.
    public var fallback: FixSourceKind?
    /// While not connected: why (the last connection's end, e.g. a refused
    /// gpsd port owner). Never holds a position.
    public var reason: String?

    public init(
        kind: FixSourceKind, connected: Bool, device: String? = nil, lastFixAge: Double? = nil, fixes: Int = 0,
        rejected: Int = 0, reconnects: Int = 0, fallback: FixSourceKind? = nil, reason: String? = nil
    ) {
        self.reason = reason
        self.kind = kind
        self.connected = connected
        self.device = device
        self.lastFixAge = lastFixAge
        self.fixes = fixes
        self.rejected = rejected
        self.reconnects = reconnects
        self.fallback = fallback
    }
}

/// A source that can describe itself for `daemon.status`.
public protocol SourceStatusReporting: Sendable {
    /// The current counters and state.
    func sourceStatus() async -> SourceStatus
}
