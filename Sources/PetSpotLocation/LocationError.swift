/// Why a location or authorization call failed.
///
/// Each case has a stable ``reason`` string, the `error.data.reason` of the
/// wire protocol.
public enum LocationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No decision yet: call `requestAuthorization`.
    case notDetermined
    /// The client was denied.
    case denied
    /// An administrator forbids location for this client.
    case restricted
    /// No valid fix within the timeout.
    case locationUnknown
    /// The source is down (connection failed or silent) and there is no fallback.
    case sourceUnavailable
    /// No prompt agent, or it did not answer in time.
    case promptUnavailable
    /// An agent or admin method from a client not allowed it.
    case forbidden
    /// The daemon is at `max_clients`.
    case tooManyClients
    /// The daemon could not be reached (client side only).
    case daemonUnreachable(String)
    /// The request was malformed or the peer broke the protocol.
    case invalidRequest(String)
    /// Something failed inside the daemon.
    case internalError(String)

    /// The stable machine-readable reason.
    public var reason: String {
        switch self {
        case .notDetermined: "notDetermined"
        case .denied: "denied"
        case .restricted: "restricted"
        case .locationUnknown: "locationUnknown"
        case .sourceUnavailable: "sourceUnavailable"
        case .promptUnavailable: "promptUnavailable"
        case .forbidden: "forbidden"
        case .tooManyClients: "tooManyClients"
        case .daemonUnreachable: "daemonUnreachable"
        case .invalidRequest: "invalidRequest"
        case .internalError: "internalError"
        }
    }

    /// The error for a refused authorization status, or `nil` for `authorized`.
    public init?(refusing status: AuthorizationStatus) {
        switch status {
        case .notDetermined: self = .notDetermined
        case .denied: self = .denied
        case .restricted: self = .restricted
        case .authorized: return nil
        }
    }

    public var description: String {
        switch self {
        case .notDetermined: "location permission has not been decided yet"
        case .denied: "location permission was denied"
        case .restricted: "location is restricted by the administrator"
        case .locationUnknown: "no valid position within the timeout"
        case .sourceUnavailable: "the position source is unavailable"
        case .promptUnavailable: "no prompt agent answered"
        case .forbidden: "not allowed for this client"
        case .tooManyClients: "the daemon has too many clients"
        case .daemonUnreachable(let detail): "the location daemon is unreachable: \(detail)"
        case .invalidRequest(let detail): "invalid request: \(detail)"
        case .internalError(let detail): "internal error: \(detail)"
        }
    }
}
