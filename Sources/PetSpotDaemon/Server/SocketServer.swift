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
import PetSpotProtocol
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
    }

    let settings: ServerSettings
    let dispatcher: Dispatcher
    let logger: Logger
    let group: any EventLoopGroup
    let onReady: @Sendable () -> Void

    /// Creates a server.
    /// - Parameters:
    ///   - onReady: called once the socket accepts connections.
    public init(
        settings: ServerSettings,
        dispatcher: Dispatcher,
        logger: Logger,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        onReady: @escaping @Sendable () -> Void = {}
    ) {
        self.settings = settings
        self.dispatcher = dispatcher
        self.logger = logger
        self.group = group
        self.onReady = onReady
    }

    public func run() async throws {
        let path = settings.socketPath
        try UnixSocketFile.prepare(path)
        // The socket is created under a tight umask, then opened up to the
        // configured mode: no moment where it is wider than configured.
        let previousMask = umask(0o177)
        let server: NIOAsyncChannel<Accepted, Never>
        do {
            server = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .childChannelOption(.allowRemoteHalfClosure, value: true)
                .bind(unixDomainSocketPath: path) { channel in
                    PeerCredentials.read(from: channel).flatMapThrowing { credentials in
                        try channel.pipeline.syncOperations.addHandler(
                            ByteToMessageHandler(
                                LineBasedFrameDecoder(), maximumBufferSize: RPCCodec.maximumLineLength))
                        let wrapped = try NIOAsyncChannel<ByteBuffer, ByteBuffer>(
                            wrappingChannelSynchronously: channel,
                            configuration: .init(isOutboundHalfClosureEnabled: true))
                        return Accepted(channel: wrapped, credentials: credentials)
                    }
                }
            umask(previousMask)
        } catch {
            umask(previousMask)
            throw error
        }
        defer { UnixSocketFile.remove(path) }
        try UnixSocketFile.secure(path, mode: settings.socketMode, group: settings.socketGroup)
        logger.info("serving", metadata: ["socket": "\(path)", "mode": "\(String(settings.socketMode, radix: 8))"])
        onReady()

        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { tasks in
                try await server.executeThenClose { clients in
                    for try await accepted in clients {
                        // Each client is served on its socket's event loop (see EventLoopTaskExecutor).
                        let executor = EventLoopTaskExecutor(accepted.channel.channel.eventLoop)
                        tasks.addTask(executorPreference: executor) { await self.serve(accepted) }
                    }
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
        logger.info("stopped serving", metadata: ["socket": "\(path)"])
    }

    /// Serves one client until it leaves (or the daemon stops).
    func serve(_ accepted: Accepted) async {
        let registry = dispatcher.registry
        guard let connectionID = await registry.admit() else {
            await refuse(accepted.channel)
            return
        }
        let identity = accepted.credentials.identity
        var logger = self.logger
        logger[metadataKey: "client"] = "uid=\(identity.uid) pid=\(identity.pid) conn=\(connectionID)"
        let session = ClientSession(
            id: connectionID, identity: identity, maxSubscriptions: settings.maxSubscriptionsPerClient,
            maxInFlight: settings.maxRequestsInFlight)
        logger.debug("connected")
        do {
            let channel = accepted.channel.channel
            try await accepted.channel.executeThenClose { inbound, outbound in
                let send: MessageSink = { message in
                    try await outbound.write(ByteBuffer(string: RPCCodec.line(message)))
                }
                await self.readRequests(inbound, session: session, send: send, channel: channel, logger: logger)
            }
        } catch {
            logger.debug("connection ended", metadata: ["error": "\(error)"])
        }
        await registry.release()
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
                    guard await session.beginRequest() else {
                        try? await send(RPCCodec.response(id: .null, error: .internalError("too many requests in flight")))
                        continue
                    }
                    let inboundMessage = RPCCodec.decode(line: line.readableBytesView)
                    requests.addTask {
                        let outcome = await self.dispatcher.handle(inboundMessage, session: session, send: send)
                        await session.endRequest()
                        if let reply = outcome.reply {
                            guard (try? await send(reply)) != nil else { return }
                        }
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

    /// Tells an extra client the daemon is full, then closes.
    func refuse(_ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>) async {
        logger.notice("refused a client: max_clients reached", metadata: ["max_clients": "\(settings.maxClients)"])
        try? await channel.executeThenClose { _, outbound in
            try await outbound.write(
                ByteBuffer(string: RPCCodec.line(RPCCodec.response(id: .null, error: RPCError(.tooManyClients)))))
        }
    }
}
