#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
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

/// The Unix-socket JSON-RPC server: binds the socket (mode and group from
/// the configuration), accepts clients up to `max_clients`, reads one
/// request per line (at most 64 KiB), and hands each to the ``Dispatcher``.
/// One client's failure never touches another's connection.
public final class SocketServer: Service {
    /// An accepted connection with the kernel's credentials of its peer.
    struct Accepted: Sendable {
        var channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>
        var credentials: PeerCredentials
        /// The peer's process, pinned at accept.
        var pin: ProcessPin
        /// Where the fan-out writes its updates.
        var updateOutlet: LoopBoundOutlet
        /// Answers `location.get` at once once the session is attached.
        var immediateAnswers: NIOLoopBound<ImmediateAnswerHandler>
        /// Closes the connection when it idles (`daemon.idle_timeout`) once the session is attached.
        var idleCloser: NIOLoopBound<IdleConnectionCloser>
        /// Its place in ``SocketServer/accepted`` until a task takes it over.
        var ticket: UInt64
    }

    let settings: ServerSettings
    let dispatcher: Dispatcher
    let logger: Logger
    let group: any EventLoopGroup
    let listener: Int32?
    let onReady: @Sendable () -> Void
    /// Accepted connections not yet taken over by a serving task.
    let accepted = AcceptedConnections()
    /// Where each event loop holds its `location.get` answers until their audit records are written.
    let batches: AnswerBatches?
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
        self.batches = dispatcher.audit.map(AnswerBatches.init(audit:))
        self.logger = logger
        self.group = group
        self.listener = listener
        self.onReady = onReady
    }

    /// Receive buffers start small: requests are a line of a few hundred
    /// bytes, and with a thousand watchers NIO's default 2 KiB start costs
    /// 2 MiB of buffers nobody fills. They grow to 64 KiB when a client sends more.
    static let receiveBuffers = AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 512, maximum: 65536)

    /// Sets up an accepted connection: its peer credentials, the update
    /// writer, the line decoder (bounded), the immediate answers, wrapped
    /// for async use.
    static func accept(
        _ channel: any Channel, dispatcher: Dispatcher, batches: AnswerBatches?, settings: ServerSettings,
        logger: Logger, holding registry: AcceptedConnections
    ) -> EventLoopFuture<Accepted> {
        PeerCredentials.read(from: channel).flatMap { credentials in
            ProcessPin.take(from: channel, pid: credentials.pid).map { (credentials, $0) }
        }.flatMapThrowing { credentials, pin in
            let updates = UpdateWriter()
            try channel.pipeline.syncOperations.addHandler(updates)
            let idleCloser = IdleConnectionCloser(logger: logger)
            try channel.pipeline.syncOperations.addHandlers([
                IdleStateHandler(readTimeout: TimeAmount(settings.idleTimeout)), idleCloser,
            ])
            try channel.pipeline.syncOperations.addHandler(
                ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: RPCCodec.maximumLineLength))
            let immediate = ImmediateAnswerHandler(dispatcher: dispatcher, batches: batches)
            try channel.pipeline.syncOperations.addHandler(immediate)
            let wrapped = try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                wrappingChannelSynchronously: channel,
                configuration: .init(isOutboundHalfClosureEnabled: true))
            return Accepted(
                channel: wrapped, credentials: credentials, pin: pin,
                updateOutlet: LoopBoundOutlet(updates, eventLoop: channel.eventLoop),
                immediateAnswers: NIOLoopBound(immediate, eventLoop: channel.eventLoop),
                idleCloser: NIOLoopBound(idleCloser, eventLoop: channel.eventLoop), ticket: registry.hold(wrapped))
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
                .bind(listener) { [accepted, dispatcher, batches, settings, logger] channel in
                    Self.accept(
                        channel, dispatcher: dispatcher, batches: batches, settings: settings, logger: logger,
                        holding: accepted)
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
                        accepted.take(connection.ticket)
                        // Each client is served on its socket's event loop (see EventLoopTaskExecutor).
                        let executor = EventLoopTaskExecutor(connection.channel.channel.eventLoop)
                        tasks.addTask(executorPreference: executor) { await self.serve(connection) }
                    }
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
        await accepted.closeUnclaimed()
        logger.info("stopped serving", metadata: ["socket": "\(servingPath)"])
    }

    /// Binds `path` itself (started by hand): refuses a live daemon's
    /// socket, replaces a stale one, and applies the configured mode and group.
    func bindOwnSocket(_ path: String) async throws -> NIOAsyncChannel<Accepted, Never> {
        try UnixSocketFile.prepare(path)
        // The socket is created under a tight umask, then opened up to the
        // configured mode: no moment where it is wider than configured.
        let previousMask = umask(0o177)
        let server: NIOAsyncChannel<Accepted, Never>
        do {
            server = try await ServerBootstrap(group: group)
                // A connection storm must not make a polite client's connect
                // fail with EAGAIN (a Unix socket's full backlog refuses at
                // once): the kernel queue is cheap, max_clients still bounds
                // what is served. The kernel caps it at net.core.somaxconn.
                .serverChannelOption(.backlog, value: 4096)
                .childChannelOption(.allowRemoteHalfClosure, value: true)
                .childChannelOption(.recvAllocator, value: Self.receiveBuffers)
                .bind(unixDomainSocketPath: path) { [accepted, dispatcher, batches, settings, logger] channel in
                    Self.accept(
                        channel, dispatcher: dispatcher, batches: batches, settings: settings, logger: logger,
                        holding: accepted)
                }
            umask(previousMask)
        } catch {
            umask(previousMask)
            throw error
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

    /// Serves one client until it leaves (or the daemon stops).
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
        let session = ClientSession(
            id: connectionID, identity: identity, maxSubscriptions: settings.maxSubscriptionsPerClient,
            maxInFlight: settings.maxRequestsInFlight, updateOutlet: accepted.updateOutlet,
            post: { [channel = accepted.channel.channel] message in
                channel.writeAndFlush(ByteBuffer(string: RPCCodec.line(message)), promise: nil)
            })
        logger.debug("connected")
        let immediateAnswers = accepted.immediateAnswers
        let idleCloser = accepted.idleCloser
        accepted.channel.channel.eventLoop.execute {
            immediateAnswers.value.attach(session)
            idleCloser.value.attach(session)
        }
        do {
            let channel = accepted.channel.channel
            try await accepted.channel.executeThenClose { inbound, outbound in
                let send: MessageSink = { message in
                    try await outbound.write(ByteBuffer(string: RPCCodec.line(message)))
                }
                // On shutdown every connection closes, watchers and waiting
                // requests included: writes then fail instead of waiting, and
                // the read loop cancels what is still in flight.
                await withGracefulShutdownHandler {
                    await self.readRequests(inbound, session: session, send: send, channel: channel, logger: logger)
                } onGracefulShutdown: {
                    channel.close(promise: nil)
                }
            }
        } catch {
            logger.debug("connection ended", metadata: ["error": "\(error)"])
        }
        await dispatcher.policy.connectionClosed(connectionID)
        await registry.release(uid: identity.uid)
        logger.debug("disconnected")
    }

    /// Reads request lines and answers each in its own child task, until
    /// the client stops sending; then waits for the answers in flight.
    ///
    /// Two ways a connection ends: the client stops sending (half-close) and
    /// every answer still goes out; or the socket closed under us (the client
    /// vanished) and requests still waiting are cancelled at once.
    func readRequests(
        _ inbound: NIOAsyncChannelInboundStream<ByteBuffer>, session: ClientSession, send: @escaping MessageSink,
        channel: any Channel, logger: Logger
    ) async {
        await withDiscardingTaskGroup { requests in
            do {
                for try await line in inbound {
                    guard line.readableBytes <= RPCCodec.maximumLineLength else {
                        try? await send(Self.lineTooLong)
                        break
                    }
                    // Backpressure: no slot, no reading (a slot is held until its answer is written).
                    await session.beginRequest()
                    let inboundMessage = RPCCodec.decode(line: line.readableBytesView)
                    requests.addTask {
                        let outcome = await self.dispatcher.handle(inboundMessage, session: session, send: send)
                        var written = true
                        if let reply = outcome.reply { written = (try? await send(reply)) != nil }
                        await session.endRequest()
                        guard written else { return }
                        await outcome.followUp?()
                    }
                }
            } catch is ByteToMessageDecoderError.PayloadTooLargeError {
                try? await send(Self.lineTooLong)
            } catch {
                logger.debug("read failed", metadata: ["error": "\(error)"])
            }
            // No more requests: subscriptions stop; answers in flight still
            // go out unless nobody is left to read them.
            await session.close()
            if !channel.isActive { requests.cancelAll() }
        }
    }

    static let lineTooLong = RPCCodec.response(
        id: .null,
        error: .invalidRequest("line longer than \(RPCCodec.maximumLineLength) bytes; closing the connection"))

    /// Tells an extra client why it is not served (`tooManyClients`), then closes.
    func refuse(
        _ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>, identity: ClientIdentity, _ refusal: ClientRegistry.Refusal
    ) async {
        logger.notice(
            "refused a client: \(refusal)",
            metadata: [
                "uid": "\(identity.uid)", "pid": "\(identity.pid)", "max_clients": "\(settings.maxClients)",
                "max_clients_per_uid": "\(settings.maxClientsPerUid)",
            ])
        let error = RPCError(
            code: RPCError(.tooManyClients).code, message: "\(LocationError.tooManyClients): \(refusal)",
            reason: LocationError.tooManyClients.reason)
        try? await channel.executeThenClose { _, outbound in
            try await outbound.write(ByteBuffer(string: RPCCodec.line(RPCCodec.response(id: .null, error: error))))
        }
    }
}
