import FoundationEssentials
import PetSpotPOSIX
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol

/// Human-readable renderings.
enum Output {
    /// A line for the person at the terminal, on standard error (standard output stays data).
    static func note(_ text: String) {
        StandardStreams.writeError("petspot-location: \(text)\n")
    }

    static func describe(_ fix: LocationFix) -> String {
        var lines: [String] = []
        var first = String(cFormat: "%.6f, %.6f", fix.coordinate.latitude, fix.coordinate.longitude)
        if let accuracy = fix.horizontalAccuracy { first += String(cFormat: " ±%.0f m", accuracy) }
        first += " (\(fix.mode == .threeD ? "3D" : "2D"), \(fix.source.rawValue)"
        first += String(cFormat: ", %.1f s old", fix.age())
        if fix.accuracy == .reduced { first += ", reduced accuracy" }
        first += ")"
        lines.append(first)
        var details: [String] = []
        if let altitude = fix.altitude { details.append(String(cFormat: "altitude %.1f m", altitude)) }
        if let speed = fix.speed { details.append(String(cFormat: "speed %.1f m/s", speed)) }
        if let course = fix.course { details.append(String(cFormat: "course %.0f°", course)) }
        if !details.isEmpty { lines.append(details.joined(separator: ", ")) }
        if let timestamp = fix.timestamp { lines.append("receiver time \(timestamp.iso8601)") }
        return lines.joined(separator: "\n")
    }

    static func describe(_ state: AuthorizationState) -> String {
        var text = state.status.rawValue
        if let accuracy = state.accuracy { text += " (\(accuracy.rawValue) accuracy)" }
        text += ", decided by \(state.decidedBy.rawValue)"
        if let client = state.client {
            text += "\nclient: uid \(client.uid)\(client.user.map { " (\($0))" } ?? ""), pid \(client.pid)"
            if let unit = client.unit { text += ", unit \(unit)" }
        }
        // User and unit names come from the system and clients: never raw to a terminal.
        return TerminalText.escaped(text)
    }

    static func describeStatus(_ status: JSONValue) -> String {
        func text(_ value: JSONValue?) -> String {
            switch value {
            case .string(let s)?: s
            case .number(let n)?: JSONValue.format(n)
            case .bool(let b)?: b ? "yes" : "no"
            default: "-"
            }
        }
        let source = status["source"]
        var lines = [
            "petspot-locationd \(text(status["version"])), up \(text(status["uptime"])) s",
            "source: \(text(source?["kind"])), connected \(text(source?["connected"]))"
                + (source?["device"] != nil ? ", device \(text(source?["device"]))" : ""),
            "fixes \(text(source?["fixes"])), rejected \(text(source?["rejected"])), reconnects \(text(source?["reconnects"]))"
                + (source?["lastFixAge"] != nil ? ", last fix \(text(source?["lastFixAge"])) s ago" : ""),
        ]
        if source?["reason"] != nil { lines.append("source down: \(text(source?["reason"]))") }
        if source?["fallback"] != nil { lines.append("fallback: \(text(source?["fallback"]))") }
        if let decisions = status["decisions"] {
            if text(decisions["state"]) == "quarantined" {
                lines.append(
                    "remembered decisions QUARANTINED since \(text(decisions["since"])): \(text(decisions["reason"]))"
                        + (decisions["movedTo"] != nil ? " (moved to \(text(decisions["movedTo"])))" : "")
                        + "; nobody is asked until a good decisions.json is in place and the daemon reloads")
            } else {
                lines.append("remembered decisions: \(text(decisions["count"]))")
            }
        }
        lines.append("clients \(text(status["clients"])), watchers \(text(status["watchers"]))")
        // gpsd's device string and the reasons come from outside: escaped, line by line.
        return lines.map { TerminalText.escaped($0) }.joined(separator: "\n")
    }

    static func json(_ value: JSONValue) -> String { TerminalText.escapedJSONLine(value.serialized()) }
}
