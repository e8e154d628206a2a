import Hummingbird
import HummingbirdCore
import Logging
import Metrics
import NIOCore
import PetSpotLinux
import PetSpotPOSIX
import Synchronization

import Glibc

/// Who may use the kiosk, decided per connection before anything is read
/// from it (SPEC §7 "kiosk peers").
///
/// The kiosk listens on loopback, where any local user could reach it and
/// the kiosk would ask the location daemon for them (a confused deputy). So
/// every connection's other end is looked up in the kernel
/// (``TCPConnectionOwner``, `NETLINK_SOCK_DIAG`, as `ss -e` does): the uid
/// that owns it must be one of `[kiosk] allowed_users` (the kiosk browser's
/// account), root, or the kiosk's own account. Anyone else, and a peer with
/// no kernel-known owner (another machine, a connection already gone), gets
/// a short 403 and the connection is closed: no page, no visit, no GPS call.
///
/// It also bounds the connections served at once
/// (``KioskLimits/connections``): one kiosk browser needs a handful.
/// Refusals are counted (`petspot_kiosk_refused_connections_total`, by
/// `reason`) and shown on `/admin/status`.
public final class StationPeers: Sendable {
    /// Why a connection was refused.
    public enum Refusal: String, Sendable, CaseIterable {
        /// Its owner is not an allowed user.
        case notAllowed = "not_allowed"
        /// The kernel knows no owner for it (not a connection on this machine, or it is gone).
        case unknownPeer = "unknown_peer"
        /// The kiosk already serves ``KioskLimits/connections`` connections.
        case tooManyConnections = "too_many_connections"
    }

    /// The uids served.
    public let allowedUIDs: Set<UInt32>
    /// The most connections served at once.
    public let maximumConnections: Int
    private let state = Mutex<(open: Int, refused: [Refusal: Int])>((0, [:]))
    private let counters: [Refusal: Counter]
    private let logger: Logger

    /// - Parameters:
    ///   - allowedUIDs: the uids served (root and the kiosk's own uid are added).
    public init(
        allowedUIDs: Set<UInt32>, maximumConnections: Int = KioskLimits.connections,
        logger: Logger = Logger(label: "petspot-kiosk"), metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        self.allowedUIDs = allowedUIDs.union([0, getuid()])
        self.maximumConnections = max(1, maximumConnections)
        self.logger = logger
        var counters: [Refusal: Counter] = [:]
        for reason in Refusal.allCases {
            counters[reason] = Counter(
                label: "petspot_kiosk_refused_connections_total", dimensions: [("reason", reason.rawValue)],
                factory: metrics)
        }
        self.counters = counters
    }

    /// The gate for `[kiosk] allowed_users`: each name resolved in the user
    /// database now; a name with no user is logged and serves nobody.
    public static func resolving(
        _ names: [String], logger: Logger, metrics: any MetricsFactory = MetricsSystem.factory
    ) -> StationPeers {
        var uids: Set<UInt32> = []
        for name in names {
            if let uid = UserDatabase.uid(ofUser: name) {
                uids.insert(uid)
            } else {
                logger.warning(
                    "kiosk.allowed_users: there is no user \"\(name)\" on this machine; its connections cannot be served"
                )
            }
        }
        return StationPeers(allowedUIDs: uids, logger: logger, metrics: metrics)
    }

    /// Refusals so far, by reason (for `/admin/status`).
    public var refusals: [Refusal: Int] { state.withLock { $0.refused } }

    /// Connections served now.
    public var openConnections: Int { state.withLock { $0.open } }

    /// Decides on `channel` (a newly accepted connection). An admitted
    /// connection counts against the bound until it closes.
    /// - Returns: `nil` when it is served, else why not.
    func admit(_ channel: any Channel) -> Refusal? {
        let verdict: Refusal?
        switch Self.owner(local: channel.localAddress, remote: channel.remoteAddress) {
        case .success(let uid) where allowedUIDs.contains(uid):
            verdict = state.withLock { state in
                guard state.open < maximumConnections else { return .tooManyConnections }
                state.open += 1
                return nil
            }
            if verdict == nil {
                channel.closeFuture.whenComplete { [self] _ in state.withLock { $0.open -= 1 } }
            }
        case .success(let uid):
            verdict = .notAllowed
            if note(.notAllowed) {
                logger.notice("a connection from uid \(uid) was refused: not in kiosk.allowed_users")
            }
        case .failure(let error):
            verdict = .unknownPeer
            if note(.unknownPeer) { logger.notice("a connection with no kernel-known owner was refused (\(error))") }
        }
        if verdict == .tooManyConnections, note(.tooManyConnections) {
            logger.warning("a connection was refused: \(maximumConnections) are open")
        }
        return verdict
    }

    /// Counts a refusal. - Returns: whether to log it: the 1st, 2nd, 4th, 8th... of its kind, so a
    /// flood of refused connections cannot flood the journal too.
    private func note(_ refusal: Refusal) -> Bool {
        counters[refusal]?.increment()
        let count = state.withLock { state in
            state.refused[refusal, default: 0] += 1
            return state.refused[refusal, default: 0]
        }
        return count & (count - 1) == 0
    }

    /// The kernel-known owner of the connection's other end.
    static func owner(local: SocketAddress?, remote: SocketAddress?) -> Result<UInt32, SystemCallError> {
        guard let local = local.flatMap(Self.endpoint), let remote = remote.flatMap(Self.endpoint) else {
            return .failure(SystemCallError("sock_diag", code: EAFNOSUPPORT))
        }
        return TCPConnectionOwner.uid(ofPeer: remote, connectedTo: local)
    }

    static func endpoint(_ address: SocketAddress) -> TCPConnectionOwner.Endpoint? {
        guard let port = address.port, let bytes = address.ipAddressBytes else { return nil }
        return TCPConnectionOwner.Endpoint(address: bytes, port: UInt16(port))
    }

    /// The answer a refused connection gets before it is closed.
    static func answer(_ refusal: Refusal) -> String {
        let (status, text) =
            switch refusal {
            case .notAllowed, .unknownPeer: ("403 Forbidden", "403 this kiosk serves its station's browser only\n")
            case .tooManyConnections: ("503 Service Unavailable", "503 too many connections\n")
            }
        return "HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(text.utf8.count)\r\n"
            + "Cache-Control: no-store\r\nConnection: close\r\n\r\n\(text)"
    }
}

extension SocketAddress {
    /// The address's bytes in network order (4 for IPv4, 16 for IPv6); `nil` for a Unix socket.
    var ipAddressBytes: [UInt8]? {
        let family: Int32
        let count: Int
        switch self {
        case .v4: (family, count) = (AF_INET, 4)
        case .v6: (family, count) = (AF_INET6, 16)
        case .unixDomainSocket: return nil
        }
        guard let text = ipAddress else { return nil }
        var bytes = [UInt8](repeating: 0, count: count)
        let parsed = bytes.withUnsafeMutableBytes { inet_pton(family, text, $0.baseAddress) }
        return parsed == 1 ? bytes : nil
    }
}

/// Hummingbird's HTTP/1 channel behind ``StationPeers``: a connection it
/// refuses gets its short answer and is closed; the HTTP pipeline is never
/// set up for it, so nothing it sends is read.
public struct StationHTTP1Channel: ServerChildChannel {
    /// A served connection, or a refused one.
    public enum Value: ServerChildChannelValue {
        case served(HTTP1Channel.Value)
        case refused(any Channel, StationPeers.Refusal)

        public var channel: any Channel {
            switch self {
            case .served(let value): value.channel
            case .refused(let channel, _): channel
            }
        }
    }

    let base: HTTP1Channel
    let peers: StationPeers

    public init(base: HTTP1Channel, peers: StationPeers) {
        self.base = base
        self.peers = peers
    }

    public func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        if let refusal = peers.admit(channel) {
            return channel.eventLoop.makeSucceededFuture(.refused(channel, refusal))
        }
        return base.setup(channel: channel, logger: logger).map { .served($0) }
    }

    public func handle(value: Value, logger: Logger) async {
        switch value {
        case .served(let channel):
            await base.handle(value: channel, logger: logger)
        case .refused(let channel, let refusal):
            let answer = channel.allocator.buffer(string: StationPeers.answer(refusal))
            try? await channel.writeAndFlush(answer)
            try? await channel.close()
        }
    }
}

extension HTTPServerBuilder {
    /// HTTP/1 for the kiosk: ``StationHTTP1Channel`` over `peers`, and a
    /// connection idle for `idleTimeout` is closed.
    public static func station(peers: StationPeers, idleTimeout: TimeAmount = .seconds(60)) -> HTTPServerBuilder {
        .init { responder in
            StationHTTP1Channel(
                base: HTTP1Channel(responder: responder, configuration: .init(idleTimeout: idleTimeout)),
                peers: peers)
        }
    }
}
