import PetSpotLocation

/// A JSON-RPC 2.0 error object. Application errors carry `data.reason`.
public struct RPCError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Invalid JSON was received.
    public static let parseErrorCode = -32700
    /// The JSON sent is not a valid request object (or the line is too long).
    public static let invalidRequestCode = -32600
    /// The method does not exist.
    public static let methodNotFoundCode = -32601
    /// Invalid method parameters.
    public static let invalidParamsCode = -32602
    /// Internal JSON-RPC error.
    public static let internalErrorCode = -32603

    public var code: Int
    public var message: String
    /// `error.data.reason` of application errors.
    public var reason: String?

    public init(code: Int, message: String, reason: String? = nil) {
        self.code = code
        self.message = message
        self.reason = reason
    }

    public var description: String { "\(message) (\(code)\(reason.map { ", \($0)" } ?? ""))" }

    public static func parseError(_ detail: String) -> RPCError {
        RPCError(code: parseErrorCode, message: "Parse error: \(detail)")
    }

    public static func invalidRequest(_ detail: String) -> RPCError {
        RPCError(code: invalidRequestCode, message: "Invalid Request: \(detail)")
    }

    public static func methodNotFound(_ method: String) -> RPCError {
        RPCError(code: methodNotFoundCode, message: "Method not found: \(method)")
    }

    public static func invalidParams(_ detail: String) -> RPCError {
        RPCError(code: invalidParamsCode, message: "Invalid params: \(detail)")
    }

    public static func internalError(_ detail: String) -> RPCError {
        RPCError(code: internalErrorCode, message: "Internal error: \(detail)")
    }

    /// The wire error for an application ``LocationError`` (SPEC §5 table).
    public init(_ error: LocationError) {
        switch error {
        case .notDetermined: self.init(code: -32001, message: error.description, reason: error.reason)
        case .denied: self.init(code: -32002, message: error.description, reason: error.reason)
        case .restricted: self.init(code: -32003, message: error.description, reason: error.reason)
        case .locationUnknown: self.init(code: -32010, message: error.description, reason: error.reason)
        case .sourceUnavailable: self.init(code: -32011, message: error.description, reason: error.reason)
        case .promptUnavailable: self.init(code: -32012, message: error.description, reason: error.reason)
        case .forbidden: self.init(code: -32030, message: error.description, reason: error.reason)
        case .tooManyClients: self.init(code: -32040, message: error.description, reason: error.reason)
        case .invalidRequest(let detail): self = .invalidRequest(detail)
        case .daemonUnreachable(let detail), .internalError(let detail): self = .internalError(detail)
        }
    }

    /// The ``LocationError`` a client should see for this wire error.
    public var locationError: LocationError {
        switch reason {
        case "notDetermined": .notDetermined
        case "denied": .denied
        case "restricted": .restricted
        case "locationUnknown": .locationUnknown
        case "sourceUnavailable": .sourceUnavailable
        case "promptUnavailable": .promptUnavailable
        case "forbidden": .forbidden
        case "tooManyClients": .tooManyClients
        default:
            code == RPCError.internalErrorCode ? .internalError(message) : .invalidRequest(message)
        }
    }
}
