import Glibc
import Logging
import NIOCore
import NIOExtras
import NIOPosix
import PetSpotJSON
import PetSpotLocation
import PetSpotPolicy
import PetSpotProtocol
import PetSpotSystemd
import ServiceLifecycle
import Synchronization

/// The Unix-socket JSON-RPC server: binds the socket (mode and group from
/// the configuration), accepts clients up to `max_clients`, reads one
/// request per line (at most 64 KiB), and hands each to the ``Dispatcher``.
/// One client's failure never touches another's connection.
public final class SocketServer: Service {
    /// An accepted connection with the kernel's credentials of its peer.
    struct Accepted: Sendable {
        var channel: any Channel
        var credentials: PeerCredentials
        /// The peer's process, pinned at accept.
        var pin: ProcessPin
        /// The connection's one reader and writer, waiting for ``ConnectionHandler/attach(_:)``.
        var handler: NIOLoopBound<ConnectionHandler>
        /// Where the fan-out writes its updates (the handler).
        var updateOutlet: LoopBoundOutlet
    }

    let settings: ServerSettings
    let dispatcher: Dispatcher
    let logger: Logger
    let group: any EventLoopGroup
    let listener: Int32?
    let onReady: @Sendable () -> Void
    /// Every open connection, closed together on shutdown.
    let connections = OpenConnections()
    /// Each event loop's batch of audit records, written before its answers.
    let auditBatches: AuditBatches?
    let identityResolver: PeerIdentityResolver

    /// Creates a server.
    /// - Parameters:
    ///   - identityResolver: derives each client's identity from its peer credentials.
    ///   - listener: an already listening Unix stream socket to serve on
    ///     (systemd socket activation). The server then neither binds, nor
    ///     changes the socket file's mode or group, nor removes it: the
    ///     `.socket` unit owns it. `nil` binds `settings.socketPath`.
    ///   - onReady: called once the socket accepts connections.
    public init(
        settings: ServerSettings,
        dispatcher: Dispatcher,
        logger: Logger,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        identityResolver: PeerIdentityResolver = PeerIdentityResolver(),
        listener: Int32? = nil,
        onReady: @escaping @Sendable () -> Void = {}
    ) {
        self.identityResolver = identityResolver
        self.settings = settings
        self.dispatcher = dispatcher
        self.auditBatches = dispatcher.audit.map { AuditBatches(group: group, audit: $0) }
        self.logger = logger
        self.group = group
        self.listener = listener
        self.onReady = onReady
    }

    /// Receive buffers start small: requests are a line of a few hundred
    /// bytes, and with a thousand watchers NIO's default 2 KiB start costs
    /// 2 MiB of buffers nobody fills. They grow to 64 KiB when a client sends more.
    static let receiveBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536)

    /// Sets up an accepted connection: its peer credentials and pin, the
    /// idle timer, the line decoder (bounded) and the connection's handler.
    /// Nothing is read until the handler is attached (``serve(_:)``).
    static func accept(
        _ channel: any Channel, dispatcher: Dispatcher, auditBatches: AuditBatches?, settings: ServerSettings,
        logger: Logger, connections: OpenConnections
    ) -> EventLoopFuture<Accepted> {
        connections.add(channel)
        return PeerCredentials.read(from: channel).flatMap { credentials in
            ProcessPin.take(from: channel, pid: credentials.pid).map { (credentials, $0) }
        }.flatMapThrowing { credentials, pin in
            let handler = ConnectionHandler(
                dispatcher: dispatcher, auditBatch: auditBatches?.batch(on: channel.eventLoop),
                maxInFlight: settings.maxRequestsInFlight, logger: logger)
            try channel.pipeline.syncOperations.addHandlers([
                IdleStateHandler(readTimeout: TimeAmount(settings.idleTimeout)),
                ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: RPCCodec.maximumLineLength),
                handler,
            ])
            return Accepted(
                channel: channel, credentials: credentials, pin: pin,
                handler: NIOLoopBound(handler, eventLoop: channel.eventLoop),
                updateOutlet: LoopBoundOutlet(handler, eventLoop: channel.eventLoop))
        }
    }

    public func run() async throws {
        let path = settings.socketPath
        let server: NIOAsyncChannel<Accepted, Never>
        var servingPath = path
        if let listener {
            server = try await ServerBootstrap(group: group)
                .childChannelOption(.allowRemoteHalfClosure, value: true)
                .childChannelOption(.recvAllocator, value: Self.receiveBuffers)
                .bind(listener) { [connections, dispatcher, auditBatches, settings, logger] channel in
                    Self.accept(
                        channel, dispatcher: dispatcher, auditBatches: auditBatches, settings: settings,
                        logger: logger, connections: connections)
                }
            let boundPath = SocketInspection.boundPath(listener) ?? "?"
            servingPath = boundPath
            logger.info(
                "serving on the socket systemd passed", metadata: ["socket": "\(boundPath)", "fd": "\(listener)"])
            if boundPath != path {
                logger.notice(
                    "the passed socket is not daemon.socket; clients must use the unit's ListenStream path",
                    metadata: ["daemon.socket": "\(path)", "passed": "\(boundPath)"])
            }
        } else {
            server = try await bindOwnSocket(path)
            logger.info("serving", metadata: ["socket": "\(path)", "mode": "\(String(settings.socketMode, radix: 8))"])
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
        let server = try await ServerBootstrap(group: group)
            // A connection storm must not make a polite client's connect
            // fail with EAGAIN (a Unix socket's full backlog refuses at
            // once): the kernel queue is cheap, max_clients still bounds
            // what is served. The kernel caps it at net.core.somaxconn.
            .serverChannelOption(.backlog, value: 4096)
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.recvAllocator, value: Self.receiveBuffers)
            .bind(unixDomainSocketPath: path) { [connections, dispatcher, auditBatches, settings, logger] channel in
                Self.accept(
                    channel, dispatcher: dispatcher, auditBatches: auditBatches, settings: settings,
                    logger: logger, connections: connections)
            }
        do {
            try UnixSocketFile.secure(path, mode: settings.socketMode, group: settings.socketGroup)
        } catch {
            try? await server.channel.close()
            UnixSocketFile.remove(path)
            throw error
        }
        return server
    }

    /// Identifies and admits one client, hands its connection handler the
    /// session, and waits until the connection closes.
    func serve(_ accepted: Accepted) async {
        let registry = dispatcher.registry
        let identity = await identityResolver.identify(accepted.credentials, pin: accepted.pin)
        // Admitted by uid, after identification: whoever may be the prompt
        // agent may use the slots kept for it, and is not held to a uid's share.
        let connectionID: ConnectionID
        switch await registry.admit(
            uid: identity.uid, agentCandidate: await dispatcher.policy.mayBePromptAgent(identity))
        {
        case .success(let id):
            connectionID = id
        case .failure(let refusal):
            await refuse(accepted.channel, identity: identity, refusal)
            return
        }
        var logger = self.logger
        logger[metadataKey: "client"] = "uid=\(identity.uid) pid=\(identity.pid) conn=\(connectionID)"
        let channel = accepted.channel
        let handler = accepted.handler
        let session = ClientSession(
            id: connectionID, identity: identity, maxSubscriptions: settings.maxSubscriptionsPerClient,
            updateOutlet: accepted.updateOutlet,
            post: { message in channel.eventLoop.execute { handler.value.post(message) } })
        logger.debug("connected")
        channel.eventLoop.execute { handler.value.attach(session) }
        await withTaskCancellationHandler {
            try? await channel.closeFuture.get()
        } onCancel: {
            channel.close(promise: nil)
        }
        await dispatcher.policy.connectionClosed(connectionID)
        await registry.release(uid: identity.uid)
        logger.debug("disconnected")
    }

    /// Tells an extra client why it is not served (`tooManyClients`), then closes.
    func refuse(_ channel: any Channel, identity: ClientIdentity, _ refusal: ClientRegistry.Refusal) async {
        logger.notice(
            "refused a client: \(refusal)",
            metadata: [
                "uid": "\(identity.uid)", "pid": "\(identity.pid)", "max_clients": "\(settings.maxClients)",
                "max_clients_per_uid": "\(settings.maxClientsPerUid)",
            ])
        let error = RPCError(
            code: RPCError(.tooManyClients).code, message: "\(LocationError.tooManyClients): \(refusal)",
            reason: LocationError.tooManyClients.reason)
        let line = ByteBuffer(string: RPCCodec.line(RPCCodec.response(id: .null, error: error)))
        try? await channel.writeAndFlush(line)
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
