import Foundation
import TestSupport

/// Scenario files and small JSON helpers shared by the process-level tests.
enum Fixtures {
    /// One fix at a known place, then silence for an hour (the fix ages).
    static let singleFix = """
        {"steps": [
          {"fix": {"latitude": -33.8688, "longitude": 151.2093, "altitude": 58, "horizontalAccuracy": 4.5,
                   "verticalAccuracy": 7, "speed": 0.5, "course": 270, "mode": 3}},
          {"noFix": 3600}
        ]}
        """

    /// Fixes every 50 ms, ~5.6 m apart, going north forever (the path is
    /// long, 500 s, so that no test sees the jump back of a loop however
    /// late a loaded machine makes it start watching).
    static let walk = """
        {"loop": true, "steps": [
          {"path": {"from": {"latitude": 10.0, "longitude": 20.0}, "to": {"latitude": 10.5, "longitude": 20.0},
                    "count": 10000, "interval": 0.05, "horizontalAccuracy": 5}}
        ]}
        """

    /// A receiver that never gets a fix.
    static let noFix = """
        {"steps": [{"noFix": 3600}]}
        """

    static func simulated(_ scenarioFile: String) -> String {
        "[source]\nkind = \"simulated\"\n[source.simulated]\nscenario = \"{dir}/\(scenarioFile)\"\n"
    }

    /// A daemon playing `scenario` (the file's contents).
    static func daemon(scenario: String, daemon: String = "", policy: String? = nil) throws -> DaemonProcess {
        if let policy {
            return try DaemonProcess(
                source: simulated("scenario.json"), daemon: daemon, policy: policy, files: ["scenario.json": scenario])
        }
        return try DaemonProcess(source: simulated("scenario.json"), daemon: daemon, files: ["scenario.json": scenario])
    }
}

/// Reads members out of `JSONSerialization` results.
extension Dictionary where Key == String, Value == Any {
    var errorCode: Int? { (self["error"] as? [String: Any])?["code"] as? Int }
    var errorReason: String? { ((self["error"] as? [String: Any])?["data"] as? [String: Any])?["reason"] as? String }
    var errorMessage: String? { (self["error"] as? [String: Any])?["message"] as? String }
    var result: [String: Any]? { self["result"] as? [String: Any] }
}

extension RawSocket {
    /// Sends one line and reads one JSON object back.
    func callLine(_ line: String, timeout: Double = 60) throws -> [String: Any] {
        try send(line + "\n")
        return try readObject(timeout: timeout)
    }

    /// Reads one JSON object.
    func readObject(timeout: Double = 60) throws -> [String: Any] {
        let value = try readJSON(timeout: timeout)
        guard let object = value as? [String: Any] else {
            throw RawSocket.Failure.timedOut("an object, got \(value)")
        }
        return object
    }

    /// `daemon.status` answered: proof that the daemon still serves.
    func assertServing() throws -> Bool {
        let answer = try callLine(#"{"jsonrpc":"2.0","id":"alive","method":"daemon.status"}"#)
        return answer["id"] as? String == "alive" && answer.result?["version"] != nil
    }
}
