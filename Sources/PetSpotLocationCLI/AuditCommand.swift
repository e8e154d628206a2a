import ArgumentParser
import FoundationEssentials
import PetSpotJSON
import PetSpotLocation
import PetSpotPOSIX
import PetSpotSettings

/// `petspot-location audit`: prints the daemon's audit log.
struct AuditCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "audit",
        abstract: "Print the daemon's audit log (whoever can read the file; it holds no coordinates).",
        discussion: """
            One record per location request and authorization change: time, client identity,
            method, status and accuracy granted, source, fix age, error reason.
            --json prints the JSON lines as they are. Exit 1 when the file cannot be read.
            """)

    @Option(name: .long, help: "The audit log (daemon.audit_log).")
    var file: String = DaemonSettings.defaultAuditLogPath

    @Flag(name: .long, help: "Print the JSON lines as stored.")
    var json = false

    @Flag(name: .long, help: "Include the rotated file (FILE.1) first.")
    var all = false

    func run() throws {
        var text = ""
        if all, let rotated = try? String(contentsOfFile: file + ".1", encoding: .utf8) { text += rotated }
        do {
            text += try String(contentsOfFile: file, encoding: .utf8)
        } catch {
            throw CLIExit(
                code: CLIExit.usage,
                message:
                    "petspot-location: cannot read the audit log \(file): \(ErrorText.describe(error))")
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if json {
                print(TerminalText.escapedJSONLine(line))
            } else {
                print(Self.describe(line))
            }
        }
    }

    /// One record as a line of text.
    static func describe(_ line: Substring) -> String {
        guard let record = try? JSONValue.parse(Data(line.utf8)) else {
            return "(unreadable record) \(TerminalText.escaped(line))"
        }
        func text(_ value: JSONValue?) -> String? {
            switch value {
            case .string(let string)?: string
            case .number(let number)?: JSONValue.format(number)
            default: nil
            }
        }
        var parts = [text(record["time"]) ?? "?", text(record["method"]) ?? "?"]
        let client = record["client"]
        var who = "uid=\(text(client?["uid"]) ?? "?") pid=\(text(client?["pid"]) ?? "?")"
        if let user = text(client?["user"]) { who += " user=\(user)" }
        if let unit = text(client?["unit"]) { who += " unit=\(unit)" }
        if let executable = text(client?["executable"]) { who += " exe=\(executable)" }
        parts.append(who)
        for key in ["status", "accuracy", "decidedBy", "source", "fixAge", "reason", "targetUid"] {
            if let value = text(record[key]) { parts.append("\(key)=\(value)") }
        }
        // Paths, units, user names and reasons come from clients: never raw to a terminal.
        return TerminalText.escaped(parts.joined(separator: " "))
    }
}
