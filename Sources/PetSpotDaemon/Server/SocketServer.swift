import Glibc
import Logging
import NIOCore
import NIOPosix
import PetSpotLocation
import PetSpotSystemd
import ServiceLifecycle
import Synchronization

/// The daemon's one Unix-socket server, for every socket it serves: binds
/// the socket (mode and group from the configuration) or takes the one
/// systemd passed, accepts clients, reads each peer's kernel credentials
/// and pins its process, identifies and admits it (`max_clients`, each
/// uid's share, and the role's own bound), and hands it to what its
/// socket's connections do (``ConnectionRole``: the JSON-RPC protocol, or
/// NMEA). One client's failure never touches another's connection; a
/// graceful shutdown closes every connection.
final class SocketServer<Role: ConnectionRole>: Service {
    /// An accepted connection with the kernel's credentials of its peer.
    struct Accepted: Sendable {
        var channel: any Channel
        var credentials: PeerCredentials
        /// The peer's process, pinned at accept.
        var pin: ProcessPin
        /// The connection's last handler (its one writer), waiting for ``ConnectionRole/start(_:handler:channel:logger:)``.
        var handler: NIOLoopBound<Role.Handler>
        /// Where the fan-out writes its updates (the handler).
        var updateOutlet: LoopBoundOutlet
    }

    /// What the connections do.
    let role: Role
    /// The socket file's path, mode and group.
    let path: String
    let mode: UInt32
    let socketGroup: String?
    let dispatcher: Dispatcher
    let logger: Logger
    let group: any EventLoopGroup
    let listener: Int32?
    let onReady: @Sendable () -> Void
    /// Every open connection, closed together on shutdown.
    let connections = OpenConnections()
    let identityResolver: PeerIdentityResolver
    /// Connections past accept and not yet gone, against ``ConnectionRole/ownBound``.
    private let serving = Atomic<Int>(0)

    /// Creates a server.
    /// - Parameters:
    ///   - role: what the socket's connections do.
    ///   - path: the socket to bind (or, with `listener`, the one clients are told to use).
    ///   - mode: the socket file's permission bits.
    ///   - socketGroup: the socket file's group, when set.
    ///   - identityResolver: derives each client's identity from its peer credentials.
    ///   - listener: an already listening Unix stream socket to serve on
    ///     (systemd socket activation). The server then neither binds, nor
    ///     changes the socket file's mode or group, nor removes it: the
    ///     `.socket` unit owns it. `nil` binds `path`.
    ///   - onReady: called once the socket accepts connections.
    init(
        role: Role, path: String, mode: UInt32, socketGroup: String?, dispatcher: Dispatcher, logger: Logger,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        identityResolver: PeerIdentityResolver = PeerIdentityResolver(), listener: Int32? = nil,
        onReady: @escaping @Sendable () -> Void = {}
    ) {
        self.role = role
        self.path = path
        self.mode = mode
        self.socketGroup = socketGroup
        self.dispatcher = dispatcher
        self.logger = logger
        self.group = group
        self.identityResolver = identityResolver
        self.listener = listener
        self.onReady = onReady
    }

    /// The listen backlog. A connection storm must not make a polite
    /// client's connect fail with EAGAIN (a Unix socket's full backlog
    /// refuses at once): the kernel queue is cheap, `max_clients` still
    /// bounds what is served. The kernel caps it at net.core.somaxconn.
    static var backlog: Int32 { 4096 }

    /// Receive buffers start small: requests are a line of a few hundred
    /// bytes, an NMEA consumer sends nothing that is kept, and with a
    /// thousand watchers NIO's default 2 KiB start costs 2 MiB of buffers
    /// nobody fills. They grow to 64 KiB when a client sends more.
    static var receiveBuffers: AdaptiveRecvByteBufferAllocator {
        AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536)
    }

    /// The one bootstrap of every socket: backlog, half-closure (a client
    /// may stop sending and still read; each role decides what that
    /// means) and the small receive buffers.
    func bootstrap() -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: Self.backlog)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.recvAllocator, value: Self.receiveBuffers)
    }

    /// Sets up an accepted connection: its peer credentials and pin, then
    /// the role's handlers. Nothing is written until the role starts it
    /// (``serve(_:)``).
    static func accept(_ channel: any Channel, role: Role, connections: OpenConnections) -> EventLoopFuture<Accepted> {
        connections.add(channel)
        return PeerCredentials.read(from: channel).flatMap { credentials in
            ProcessPin.take(from: channel, pid: credentials.pid).map { (credentials, $0) }
        }.flatMapThrowing { credentials, pin in
            let handler = try role.addHandlers(to: channel)
            return Accepted(
                channel: channel, credentials: credentials, pin: pin,
                handler: NIOLoopBound(handler, eventLoop: channel.eventLoop),
                updateOutlet: LoopBoundOutlet(handler, eventLoop: channel.eventLoop))
        }
    }

    func run() async throws {
        let server: NIOAsyncChannel<Accepted, Never>
        var servingPath = path
        if let listener {
            server = try await bootstrap().bind(listener) { [role, connections] channel in
                Self.accept(channel, role: role, connections: connections)
            }
            // NIO listens on an adopted socket again, with its default backlog
            // (128), before any option applies: the passed socket takes the
            // server's, as the one it binds does.
            Glibc.listen(listener, Self.backlog)
            let boundPath = SocketInspection.boundPath(listener) ?? "?"
            servingPath = boundPath
            logger.info(
                "serving on the socket systemd passed", metadata: ["socket": "\(boundPath)", "fd": "\(listener)"])
            if boundPath != path {
                logger.notice(
                    "the passed socket is not the configured one; clients must use the unit's ListenStream path",
                    metadata: ["configured": "\(path)", "passed": "\(boundPath)"])
            }
        } else {
            server = try await bindOwnSocket(path)
            logger.info("serving", metadata: ["socket": "\(path)", "mode": "\(String(mode, radix: 8))"])
        }
        // The socket file is removed on the way out, only when the daemon bound it.
        defer { if listener == nil { UnixSocketFile.remove(path) } }
        onReady()

        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { tasks in
                try await server.executeThenClose { clients in
                    for try await connection in clients {
                        // Each client is served on its socket's event loop (see EventLoopTaskExecutor).
                        let executor = EventLoopTaskExecutor(connection.channel.eventLoop)
                        tasks.addTask(executorPreference: executor) { await self.serve(connection) }
                    }
                }
            }
        } onGracefulShutdown: {
            // Every connection closes, watchers and waiting requests included.
            server.channel.close(promise: nil)
            self.connections.closeAll()
        }
        connections.closeAll()
        logger.info("stopped serving", metadata: ["socket": "\(servingPath)"])
    }

    /// Binds `path` itself (started by hand): refuses a live daemon's
    /// socket, replaces a stale one, and applies the configured mode and group.
    func bindOwnSocket(_ path: String) async throws -> NIOAsyncChannel<Accepted, Never> {
        try UnixSocketFile.prepare(path)
        // The socket is created under the daemon's umask (0177, set once at
        // start: LocationDaemonCommand), then opened up to the configured
        // mode: no moment where it is wider than configured.
        let server = try await bootstrap().bind(unixDomainSocketPath: path) { [role, connections] channel in
            Self.accept(channel, role: role, connections: connections)
        }
        do {
            try UnixSocketFile.secure(path, mode: mode, group: socketGroup)
        } catch {
            try? await server.channel.close()
            UnixSocketFile.remove(path)
            throw error
        }
        return server
    }

    /// Identifies and admits one client, starts its role, and waits until
    /// the connection closes.
    func serve(_ accepted: Accepted) async {
        let channel = accepted.channel
        // The socket's own bound first: a flood of connections past it costs no identity lookup.
        if let bound = role.ownBound {
            guard serving.add(1, ordering: .relaxed).newValue <= bound.limit else {
                serving.subtract(1, ordering: .relaxed)
                accepted.pin.release()
                logger.notice(
                    "refused a \(role.noun): \(bound.key) reached",
                    metadata: ["uid": "\(accepted.credentials.uid)", "pid": "\(accepted.credentials.pid)"])
                try? await channel.close()
                return
            }
        }
        defer { if role.ownBound != nil { serving.subtract(1, ordering: .relaxed) } }
        let registry = dispatcher.registry
        let identity = await identityResolver.identify(accepted.credentials, pin: accepted.pin)
        // Admitted by uid, after identification: whoever may be the prompt
        // agent may use the slots kept for it, and is not held to a uid's share.
        let connectionID: ConnectionID
        switch registry.admit(uid: identity.uid, agentCandidate: await role.mayBePromptAgent(identity)) {
        case .success(let id):
            connectionID = id
        case .failure(let refusal):
            await refuse(channel, identity: identity, refusal)
            return
        }
        var logger = self.logger
        logger[metadataKey: "client"] = "uid=\(identity.uid) pid=\(identity.pid) conn=\(connectionID)"
        let session = role.session(
            id: connectionID, identity: identity, handler: accepted.handler, outlet: accepted.updateOutlet,
            channel: channel)
        logger.debug("connected")
        await role.start(session, handler: accepted.handler, channel: channel, logger: logger)
        await withTaskCancellationHandler {
            try? await channel.closeFuture.get()
        } onCancel: {
            channel.close(promise: nil)
        }
        session.close()
        await dispatcher.policy.connectionClosed(connectionID)
        registry.release(uid: identity.uid)
        logger.debug("disconnected")
    }

    /// Tells a client past `max_clients` or its uid's share why it is not
    /// served (as its role says), then closes.
    func refuse(_ channel: any Channel, identity: ClientIdentity, _ refusal: ClientRegistry.Refusal) async {
        let registry = dispatcher.registry
        logger.notice(
            "refused a \(role.noun): \(refusal)",
            metadata: [
                "uid": "\(identity.uid)", "pid": "\(identity.pid)", "max_clients": "\(registry.capacity)",
                "max_clients_per_uid": "\(registry.perUid)",
            ])
        if let line = role.refusalLine(refusal) { try? await channel.writeAndFlush(line) }
        try? await channel.close()
    }
}

/// Every open connection of a server, so a shutdown closes them all: those
/// being served and those accepted while the server stopped, which no
/// task took over.
final class OpenConnections: Sendable {
    private let open = Mutex<[ObjectIdentifier: any Channel]>([:])

    /// Holds `channel` until it closes.
    func add(_ channel: any Channel) {
        let key = ObjectIdentifier(channel)
        open.withLock { $0[key] = channel }
        channel.closeFuture.whenComplete { [self] _ in _ = open.withLock { $0.removeValue(forKey: key) } }
    }

    /// Closes every open connection.
    func closeAll() {
        for channel in open.withLock({ Array($0.values) }) { channel.close(promise: nil) }
    }
}
