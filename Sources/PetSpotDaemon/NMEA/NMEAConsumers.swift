import Logging
import NIOCore
import NIOPosix
import PetSpotLocation
import PetSpotProtocol
import PetSpotSettings

/// The optional NMEA socket's connections, for desktop software that reads
/// a receiver: GeoClue's `nmea-socket` source, gpsd through a pty, anything
/// that reads NMEA 0183. It speaks nothing but NMEA: a consumer connects and
/// reads GGA, RMC and GSA sentences generated from the daemon's fixes
/// (``NMEAUpdateLines``), written by its ``NMEAConsumerHandler``.
///
/// Served by the one ``SocketServer``, every consumer is a client like any
/// other: identified by the kernel (SO_PEERCRED, pinned), counted against
/// `max_clients` and its uid's share (never as a prompt agent: it speaks no
/// JSON-RPC), and first against `nmea.max_clients`; and judged by the same
/// policy as a `location.watch` (it *is* one: the daemon opens the watch
/// for it, audited as such). A consumer the policy or the registry refuses
/// gets no sentence and is disconnected; a reduced one gets the snapped
/// position at the reduced rate; one that loses its authorization (reload,
/// reset) is disconnected. GeoClue then applies its own per-app agent on top.
struct NMEAConsumers: ConnectionRole {
    let settings: NMEASettings
    let dispatcher: Dispatcher

    var noun: String { "NMEA consumer" }

    var ownBound: (limit: Int, key: String)? { (settings.maxClients, "nmea.max_clients") }

    func addHandlers(to channel: any Channel) throws -> NMEAConsumerHandler {
        let handler = NMEAConsumerHandler()
        try channel.pipeline.syncOperations.addHandler(handler)
        return handler
    }

    func mayBePromptAgent(_ identity: ClientIdentity) async -> Bool { false }

    /// Nothing: the socket speaks only NMEA; the consumer sees the connection close.
    func refusalLine(_ refusal: ClientRegistry.Refusal) -> ByteBuffer? { nil }

    /// One watch, and no other message: whatever the daemon would tell the
    /// consumer (its watch ended: it lost its authorization) closes the connection.
    func session(
        id: ConnectionID, identity: ClientIdentity, handler: NIOLoopBound<NMEAConsumerHandler>,
        outlet: LoopBoundOutlet, channel: any Channel
    ) -> ClientSession {
        ClientSession(
            id: id, identity: identity, maxSubscriptions: 1, updateOutlet: outlet,
            post: { _ in channel.close(promise: nil) })
    }

    /// Opens the consumer's one watch, judged and audited as any
    /// `location.watch`; refused, the connection closes.
    func start(
        _ session: ClientSession, handler: NIOLoopBound<NMEAConsumerHandler>, channel: any Channel, logger: Logger
    ) async {
        do {
            let (_, startUpdates) = try await dispatcher.locationWatch(WatchOptions(), session: session)
            logger.info("NMEA consumer connected")
            await startUpdates?()
        } catch {
            logger.notice("NMEA consumer refused", metadata: ["reason": "\(error.message)"])
            channel.close(promise: nil)
        }
    }
}

extension SocketServer where Role == NMEAConsumers {
    /// The NMEA socket's server (`[nmea]`).
    convenience init(
        nmea settings: NMEASettings, dispatcher: Dispatcher, logger: Logger,
        group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        identityResolver: PeerIdentityResolver = PeerIdentityResolver()
    ) {
        self.init(
            role: NMEAConsumers(settings: settings, dispatcher: dispatcher), path: settings.socket,
            mode: settings.socketMode, socketGroup: settings.socketGroup, dispatcher: dispatcher, logger: logger,
            group: group, identityResolver: identityResolver)
    }
}
