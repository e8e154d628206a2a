import Foundation
import TestSupport

extension RawSocket {
    /// Sends a request with `id` and returns its response, skipping other lines
    /// (notifications, requests to an agent).
    func call(
        _ method: String, _ params: [String: Any]? = nil, id: Int = 1, timeout: Double = 60
    ) throws
        -> [String: Any]
    {
        try sendRequest(method, params, id: id)
        return try response(id: id, timeout: timeout)
    }

    /// Sends a request without waiting.
    func sendRequest(_ method: String, _ params: [String: Any]? = nil, id: Int) throws {
        var message: [String: Any] = ["jsonrpc": "2.0", "id": id, "method": method]
        if let params { message["params"] = params }
        try sendJSON(message)
    }

    /// Sends one JSON object as a line.
    func sendJSON(_ message: [String: Any]) throws {
        let data = try JSONSerialization.data(withJSONObject: message)
        try send(String(decoding: data, as: UTF8.self) + "\n")
    }

    /// Reads lines until the response to `id`.
    func response(id: Int, timeout: Double = 60) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw PolicyTestError("no response to request \(id)") }
            guard let object = try readJSON(timeout: remaining) as? [String: Any] else { continue }
            if object["method"] == nil, (object["id"] as? Int) == id { return object }
        }
    }

    /// Reads lines until a message with `method` (a notification or a request from the daemon).
    func message(method: String, timeout: Double = 60) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw PolicyTestError("no \(method) message") }
            if let object = try readJSON(timeout: remaining) as? [String: Any], object["method"] as? String == method {
                return object
            }
        }
    }
}

/// The error code of a response, if it is an error.
func errorCode(_ response: [String: Any]) -> Int? { (response["error"] as? [String: Any])?["code"] as? Int }

/// The `error.data.reason` of a response.
func errorReason(_ response: [String: Any]) -> String? {
    ((response["error"] as? [String: Any])?["data"] as? [String: Any])?["reason"] as? String
}

/// The result object of a response.
func resultObject(_ response: [String: Any]) -> [String: Any]? { response["result"] as? [String: Any] }

/// Parses a JSON object printed by the CLI.
func jsonObject(_ text: String) -> [String: Any]? {
    let line = text.split(separator: "\n").first.map(String.init) ?? ""
    return try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
}
