import PetSpotJSON

/// One decoded JSON-RPC 2.0 request or notification.
public struct RPCRequest: Sendable, Equatable {
    /// `nil` for a notification (no `id` member); `.null` when the client sent `"id": null`.
    public var id: JSONValue?
    public var method: String
    /// The `params` member, when present (an object or an array).
    public var params: JSONValue?

    public init(id: JSONValue?, method: String, params: JSONValue? = nil) {
        self.id = id
        self.method = method
        self.params = params
    }

    /// Whether no answer is expected.
    public var isNotification: Bool { id == nil }
}

/// What one received line holds.
public enum RPCInbound: Sendable, Equatable {
    /// A single message: a request, or the error answer for a broken one.
    case single(RPCParsed)
    /// A batch (non-empty array): each element parsed on its own.
    case batch([RPCParsed])
    /// The line as a whole is broken (invalid JSON, empty batch): answer this, id null.
    case failure(RPCError)
}

/// One element: a request, a response (the answer of a peer the daemon
/// asked, e.g. a prompt agent), or the error to send back (with the id when
/// one could be read).
public enum RPCParsed: Sendable, Equatable {
    case request(RPCRequest)
    case response(RPCResponse)
    case invalid(id: JSONValue, RPCError)
}

/// One decoded JSON-RPC 2.0 response: an object with `id` and exactly one
/// of `result` or `error`, and no `method`.
public struct RPCResponse: Sendable, Equatable {
    /// The id of the request it answers.
    public var id: JSONValue
    /// The result, or the error the peer sent.
    public var outcome: Result<JSONValue, RPCError>

    public init(id: JSONValue, outcome: Result<JSONValue, RPCError>) {
        self.id = id
        self.outcome = outcome
    }
}

/// Turns lines into messages and messages into lines (JSON-RPC 2.0, one per line).
public enum RPCCodec {
    /// Longest line accepted, newline excluded (SPEC §5).
    public static let maximumLineLength = 65_536
    /// Most messages in one batch. Each element gets an answer of its own, so
    /// without a bound one 64 KiB line of `[1,1,1,…]` asks for tens of
    /// thousands of error answers (megabytes held for a client that may never
    /// read them). A longer batch is refused whole with -32600.
    public static let maximumBatchLength = 64

    /// Decodes one line (without its newline).
    public static func decode(line: some Collection<UInt8>) -> RPCInbound {
        let value: JSONValue
        do {
            value = try JSONValue.parse(bytes: line)
        } catch {
            return .failure(.parseError("the line is not valid JSON"))
        }
        switch value {
        case .array(let elements):
            guard !elements.isEmpty else { return .failure(.invalidRequest("empty batch")) }
            guard elements.count <= maximumBatchLength else {
                return .failure(
                    .invalidRequest("batch of \(elements.count) messages; at most \(maximumBatchLength) per batch"))
            }
            return .batch(elements.map(parse))
        case .object:
            return .single(parse(value))
        default:
            return .failure(.invalidRequest("a request must be an object or a batch array, not \(value.typeName)"))
        }
    }

    /// Validates one request object.
    public static func parse(_ value: JSONValue) -> RPCParsed {
        guard case .object(let members) = value else {
            return .invalid(id: .null, .invalidRequest("a request must be an object, not \(value.typeName)"))
        }
        var id: JSONValue?
        if let raw = members["id"] {
            switch raw {
            case .string, .number, .null: id = raw
            default: return .invalid(id: .null, .invalidRequest("id must be a string, a number or null"))
            }
        }
        let replyID = id ?? .null
        guard members["jsonrpc"] == .string("2.0") else {
            return .invalid(id: replyID, .invalidRequest("jsonrpc must be \"2.0\""))
        }
        if members["method"] == nil, let response = parseResponse(members, id: replyID) {
            return response
        }
        guard case .string(let method)? = members["method"] else {
            return .invalid(id: replyID, .invalidRequest("method must be a string"))
        }
        let params = members["params"]
        switch params {
        case nil, .object?, .array?: break
        default: return .invalid(id: replyID, .invalidRequest("params must be an object or an array"))
        }
        if let unknown = members.keys.first(where: { !["jsonrpc", "id", "method", "params"].contains($0) }) {
            return .invalid(id: replyID, .invalidRequest("unknown member \(unknown)"))
        }
        return .request(RPCRequest(id: id, method: method, params: params))
    }

    /// A response object (`id` plus exactly one of `result`/`error`), or
    /// `nil` when the object is not shaped like one.
    static func parseResponse(_ members: [String: JSONValue], id: JSONValue) -> RPCParsed? {
        let result = members["result"]
        let error = members["error"]
        guard (result == nil) != (error == nil), members["id"] != nil else { return nil }
        if let unknown = members.keys.first(where: { !["jsonrpc", "id", "result", "error"].contains($0) }) {
            return .invalid(id: id, .invalidRequest("unknown member \(unknown)"))
        }
        if let result { return .response(RPCResponse(id: id, outcome: .success(result))) }
        guard let error, case .object = error else {
            return .invalid(id: id, .invalidRequest("error must be an object"))
        }
        return .response(RPCResponse(id: id, outcome: .failure(decodeError(error))))
    }

    /// A success response.
    public static func response(id: JSONValue, result: JSONValue) -> JSONValue {
        ["jsonrpc": "2.0", "id": id, "result": result]
    }

    /// An error response.
    public static func response(id: JSONValue, error: RPCError) -> JSONValue {
        ["jsonrpc": "2.0", "id": id, "error": encode(error)]
    }

    /// A notification (no id).
    public static func notification(method: String, params: JSONValue) -> JSONValue {
        ["jsonrpc": "2.0", "method": .string(method), "params": params]
    }

    /// A request (with id) or notification (`id == nil`).
    public static func request(id: JSONValue?, method: String, params: JSONValue?) -> JSONValue {
        var members: [String: JSONValue] = ["jsonrpc": "2.0", "method": .string(method)]
        if let id { members["id"] = id }
        if let params { members["params"] = params }
        return .object(members)
    }

    /// The error object.
    public static func encode(_ error: RPCError) -> JSONValue {
        var members: [String: JSONValue] = ["code": .number(Double(error.code)), "message": .string(error.message)]
        if let reason = error.reason { members["data"] = ["reason": .string(reason)] }
        return .object(members)
    }

    /// Reads an error object back. A `code` that is not a whole number in
    /// the 32-bit range JSON-RPC error codes use (a peer's mistake or a
    /// hostile peer's `-3.2e29`) reads as a malformed error object, never
    /// as a trap.
    public static func decodeError(_ value: JSONValue) -> RPCError {
        guard case .number(let number)? = value["code"], let code = Int32(exactly: number) else {
            return .internalError("malformed error object")
        }
        var message = ""
        if case .string(let text)? = value["message"] { message = text }
        var reason: String?
        if case .string(let text)? = value["data"]?["reason"] { reason = text }
        return RPCError(code: Int(code), message: message, reason: reason)
    }

    /// A message as one line, newline included.
    public static func line(_ message: JSONValue) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320)
        message.write(utf8: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
