import FoundationEssentials
import NIOCore
import PetSpotLinux
import PetSpotOutbox
import PetSpotPOSIX

/// The station's figures for its operator (`GET /admin/status`): the outbox
/// in counts and times, no personal data and no backend error text.
public struct StationStatus: Sendable, Hashable {
    /// The outbox's summary, or why it could not be read.
    public var outbox: Result<OutboxSummary, StatusUnavailable>
    /// When the figures were read.
    public var readAt: Date

    public init(outbox: Result<OutboxSummary, StatusUnavailable>, readAt: Date = Date()) {
        self.outbox = outbox
        self.readAt = readAt
    }

    /// The outbox could not be read; `reason` is for the operator.
    public struct StatusUnavailable: Error, Sendable, Hashable {
        public var reason: String
        public init(reason: String) { self.reason = reason }
    }
}

/// Who may see `/admin/status`: only a peer on this machine (an IPv4 or IPv6
/// loopback address), whatever `[kiosk] listen` says, that asked for it by a
/// loopback name. A request whose peer address is unknown is refused.
public enum AdminAccess {
    /// Whether `peer` is on this machine and `host` (the request's `Host`)
    /// is `127.0.0.1`, `localhost` or `[::1]`, with or without a port: a page
    /// from another site whose name was re-bound to 127.0.0.1 (DNS
    /// rebinding) asks with its own name and is refused.
    public static func allows(_ peer: SocketAddress?, host: String?) -> Bool {
        isLoopbackHost(host) && isLoopbackPeer(peer)
    }

    static func isLoopbackPeer(_ peer: SocketAddress?) -> Bool {
        guard let peer, let ip = peer.ipAddress?.lowercased() else { return false }
        switch peer {
        case .v4: return ip.hasPrefix("127.")  // 127.0.0.0/8
        case .v6: return ip == "::1" || ip.hasPrefix("::ffff:127.")
        case .unixDomainSocket: return false
        }
    }

    /// `127.0.0.1`, `localhost` or `[::1]`, optionally with `:port` (digits).
    static func isLoopbackHost(_ host: String?) -> Bool {
        guard var name = host?.lowercased() else { return false }
        if let colon = name.lastIndex(of: ":"), !name.hasSuffix("]") {
            let port = name[name.index(after: colon)...]
            guard !port.isEmpty, port.count <= 5, port.allSatisfy(\.isASCII), port.allSatisfy(\.isNumber) else {
                return false
            }
            name = String(name[..<colon])
        }
        return name == "127.0.0.1" || name == "localhost" || name == "[::1]"
    }
}

/// What the status page shows: every figure as a label and a value.
struct StationStatusView: Sendable {
    struct Row: Sendable {
        var id: String
        var label: String
        var value: String
    }
    var rows: [Row]
    var problem: String?
    var readAt: String
    /// The kiosk's own figures: open visits, the GPS button's refusals.
    var kiosk: [Row]
    /// What to do about the last GPS refusal, when there was one.
    var locationRemedy: String?

    init(
        _ status: StationStatus, openVisits: Int = 0,
        refusals: (count: Int, last: LocationRefusal?) = (0, nil),
        peers: [StationPeers.Refusal: Int]? = nil
    ) {
        let format = Date.ISO8601FormatStyle()
        func time(_ date: Date?) -> String { date.map { $0.formatted(format) } ?? "—" }
        readAt = status.readAt.formatted(format)
        kiosk = [
            Row(id: "visits", label: "Open visits", value: String(openVisits)),
            Row(id: "locationRefusals", label: "GPS refusals since start", value: String(refusals.count)),
            Row(
                id: "locationLastRefusal", label: "Last GPS refusal",
                value: refusals.last.map { "\(time($0.at)): \($0.summary)" } ?? "—"),
            // The allocator's bytes in use (no personal data): memory a station keeps per visit shows here.
            Row(id: "heapInUse", label: "Memory in use (bytes)", value: HeapUsage.bytesInUse.map(String.init) ?? "—"),
        ]
        if let peers {
            kiosk.append(
                Row(
                    id: "refusedConnections", label: "Connections refused (not the kiosk browser)",
                    value: String(peers[.notAllowed, default: 0] + peers[.unknownPeer, default: 0])))
            kiosk.append(
                Row(
                    id: "refusedBusy", label: "Connections refused (too many at once)",
                    value: String(peers[.tooManyConnections, default: 0])))
        }
        locationRemedy = refusals.last?.remedy
        switch status.outbox {
        case .failure(let unavailable):
            rows = []
            problem = unavailable.reason
        case .success(let summary):
            problem = nil
            rows = [
                Row(id: "pending", label: "Pending", value: String(summary.pending)),
                Row(id: "delivering", label: "Being delivered", value: String(summary.delivering)),
                Row(id: "delivered", label: "Delivered", value: String(summary.delivered)),
                Row(id: "purged", label: "Delivered, personal data deleted", value: String(summary.purged)),
                Row(id: "rejected", label: "Rejected (see petspot-report outbox)", value: String(summary.rejected)),
                Row(
                    id: "oldestUndelivered", label: "Oldest undelivered since", value: time(summary.oldestUndeliveredAt)
                ),
                Row(id: "nextAttempt", label: "Next attempt", value: time(summary.nextAttemptAt)),
                Row(id: "lastDelivered", label: "Last delivered", value: time(summary.lastDeliveredAt)),
                Row(
                    id: "lastFailure", label: "Last failed attempt",
                    value: summary.lastFailureAt.map { date in
                        time(date) + (summary.lastFailureStatus.map { " (HTTP \($0))" } ?? " (no answer)")
                    } ?? "—"),
                Row(
                    id: "corrupt", label: "Corrupt databases moved aside",
                    value: summary.corruptDatabases.isEmpty ? "none" : summary.corruptDatabases.joined(separator: ", ")),
            ]
        }
    }
}
