import FoundationEssentials
import PetSpotLocation
import PetSpotOutbox

/// How `petspot-report outbox` prints the queue.
///
/// Last errors and references hold the backend's words (a redirect's
/// `Location`, its messages and ids): every line goes through
/// `TerminalText`, so that a hostile backend cannot drive the operator's
/// terminal. The JSON stays the same JSON, its control characters written
/// as `\uXXXX`.
enum OutboxListing {
    static func json(directory: String, summary: OutboxSummary, entries: [OutboxEntry]) throws -> String {
        struct Listing: Encodable {
            var outbox: String
            var summary: OutboxSummary
            var reports: [OutboxEntry]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(Listing(outbox: directory, summary: summary, reports: entries))
        // Pretty-printed: a raw line break only ever separates tokens, never sits inside a string.
        return String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .map { TerminalText.escapedJSONLine($0) }.joined(separator: "\n")
    }

    static func text(directory: String, summary: OutboxSummary, entries: [OutboxEntry], all: Bool, now: Date) -> String
    {
        var lines: [String] = []
        lines.append(
            "Outbox \(directory): \(summary.pending) pending, \(summary.delivering) delivering, "
                + "\(summary.delivered) delivered (\(summary.purged) purged), \(summary.rejected) rejected")
        if let next = summary.nextAttemptAt { lines.append("Next attempt: \(time(next, now: now))") }
        if let oldest = summary.oldestUndeliveredAt { lines.append("Oldest undelivered: \(time(oldest, now: now))") }
        if let last = summary.lastDeliveredAt { lines.append("Last delivery: \(time(last, now: now))") }
        for name in summary.corruptDatabases {
            lines.append("WARNING: a corrupt database was moved aside: \(directory)/\(name)")
        }
        let delivered = entries.filter { $0.state == .delivered }
        let shown = entries.filter { $0.state != .delivered } + (all ? delivered : Array(delivered.suffix(10)))
        if shown.isEmpty { return escaped(lines) }
        lines.append("")
        lines.append(
            pad("ID", 36) + "  " + pad("STATE", 10) + "  " + pad("CREATED", 20) + "  TRIES  " + pad("NEXT ATTEMPT", 20)
                + "  DETAIL")
        for entry in shown.sorted(by: { $0.createdAt < $1.createdAt }) {
            var detail = ""
            switch entry.state {
            case .delivered:
                detail = "reference \(entry.backendReference ?? "none")" + (entry.purgedAt != nil ? ", purged" : "")
            default:
                detail = entry.lastError ?? ""
            }
            lines.append(
                pad(entry.id, 36) + "  " + pad(entry.state.rawValue, 10) + "  "
                    + pad(iso(entry.createdAt), 20) + "  " + pad(String(entry.attempts), 5) + "  "
                    + pad(entry.nextAttemptAt.map(iso) ?? "-", 20) + "  " + detail)
        }
        if !all && delivered.count > 10 {
            lines.append("(\(delivered.count - 10) older delivered reports not shown: --all)")
        }
        return escaped(lines)
    }

    private static func escaped(_ lines: [String]) -> String {
        lines.map { TerminalText.escaped($0) }.joined(separator: "\n")
    }

    static func iso(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }

    static func time(_ date: Date, now: Date) -> String {
        let seconds = Int(date.timeIntervalSince(now).rounded())
        let relative = seconds >= 0 ? "in \(duration(seconds))" : "\(duration(-seconds)) ago"
        return "\(iso(date)) (\(relative))"
    }

    static func duration(_ seconds: Int) -> String {
        switch seconds {
        case ..<120: "\(seconds) s"
        case ..<7200: "\(seconds / 60) min"
        case ..<172_800: "\(seconds / 3600) h"
        default: "\(seconds / 86400) days"
        }
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }
}
