import Logging
import NIOCore
import NIOExtras
import NIOPosix
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import PetSpotSettings

/// The protocol socket's connections (`daemon.socket`): JSON-RPC, one
/// request per line (at most 64 KiB), each connection served by its
/// ``ConnectionHandler``, which answers through the ``Dispatcher``.
struct RPCConnections: ConnectionRole {
    /// Requests one connection may have taken and not yet answered (not a configuration key).
    static let maxRequestsInFlight = 64
    /// Subscriptions one connection may hold (not a configuration key).
    static let maxSubscriptionsPerClient = 32

    let settings: DaemonSettings
    let dispatcher: Dispatcher
    /// Each event loop's batch of audit records, written before its answers.
    let auditBatches: AuditBatches?
    let logger: Logger

    init(settings: DaemonSettings, dispatcher: Dispatcher, group: any EventLoopGroup, logger: Logger) {
        self.settings = settings
        self.dispatcher = dispatcher
        self.auditBatches = dispatcher.audit.map { AuditBatches(group: group, audit: $0) }
        self.logger = logger
    }

    var noun: String { "client" }

    /// Only the registry's bounds (`max_clients`, `max_clients_per_uid`).
    var ownBound: (limit: Int, key: String)? { nil }

    /// The idle timer, the line decoder (bounded) and the connection's
    /// handler. Nothing is read until the handler is attached (``start(_:handler:channel:logger:)``).
    func addHandlers(to channel: any Channel) throws -> ConnectionHandler {
        let handler = ConnectionHandler(
            dispatcher: dispatcher, auditBatch: auditBatches?.batch(on: channel.eventLoop),
            maxInFlight: Self.maxRequestsInFlight, logger: logger)
        try channel.pipeline.syncOperations.addHandlers([
            IdleStateHandler(readTimeout: TimeAmount(settings.idleTimeout)),
            ByteToMessageHandler(LineBasedFrameDecoder(), maximumBufferSize: RPCCodec.maximumLineLength),
            handler,
        ])
        return handler
    }

    func mayBePromptAgent(_ identity: ClientIdentity) async -> Bool {
        await dispatcher.policy.mayBePromptAgent(identity)
    }

    /// `tooManyClients`, once, before the connection closes.
    func refusalLine(_ refusal: ClientRegistry.Refusal) -> ByteBuffer? {
        let error = RPCError(
            code: RPCError(.tooManyClients).code, message: "\(LocationError.tooManyClients): \(refusal)",
            reason: LocationError.tooManyClients.reason)
        return ByteBuffer(string: RPCCodec.line(RPCCodec.response(id: .null, error: error)))
    }

    func session(
        id: ConnectionID, identity: ClientIdentity, handler: NIOLoopBound<ConnectionHandler>, outlet: LoopBoundOutlet,
        channel: any Channel
    ) -> ClientSession {
        ClientSession(
            id: id, identity: identity, maxSubscriptions: Self.maxSubscriptionsPerClient, updateOutlet: outlet,
            post: { message in channel.eventLoop.execute { handler.value.post(message) } })
    }

    /// Hands the handler its session: reading starts.
    func start(
        _ session: ClientSession, handler: NIOLoopBound<ConnectionHandler>, channel: any Channel, logger: Logger
    ) async {
        channel.eventLoop.execute { handler.value.attach(session) }
    }
}

extension SocketServer where Role == RPCConnections {
    /// The protocol socket's server (`daemon.socket`).
    /// - Parameters:
    ///   - identityResolver: derives each client's identity from its peer credentials.
    ///   - listener: the socket systemd passed, if any (see ``SocketServer/init(role:path:mode:socketGroup:dispatcher:logger:group:identityResolver:listener:onReady:)``).
    ///   - onReady: called once the socket accepts connections.
    convenience init(
        settings: DaemonSettings, dispatcher: Dispatcher, logger: Logger,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        identityResolver: PeerIdentityResolver = PeerIdentityResolver(), listener: Int32? = nil,
        onReady: @escaping @Sendable () -> Void = {}
    ) {
        self.init(
            role: RPCConnections(settings: settings, dispatcher: dispatcher, group: group, logger: logger),
            path: settings.socket, mode: settings.socketMode, socketGroup: settings.socketGroup,
            dispatcher: dispatcher, logger: logger, group: group, identityResolver: identityResolver,
            listener: listener, onReady: onReady)
    }
}
