import Glibc
import Logging
import NIOCore
import NIOPosix
import PetSpotLocation
import PetSpotProtocol
import ServiceLifecycle
import Synchronization

/// Where and to how many consumers the daemon speaks NMEA (`[nmea]`).
public struct NMEASocketSettings: Sendable, Hashable {
    /// The socket's path.
    public var path: String
    /// Its permission bits.
    public var mode: UInt32
    /// Its group, when set.
    public var group: String?
    /// Consumers served at once (each also counts against `max_clients`).
    public var maxClients: Int

    public init(path: String, mode: UInt32 = 0o660, group: String? = nil, maxClients: Int = 4) {
        self.path = path
        self.mode = mode
        self.group = group
        self.maxClients = maxClients
    }
}

/// The optional second socket, for desktop software that reads a receiver:
/// GeoClue's `nmea-socket` source, gpsd through a pty, anything that reads
/// NMEA 0183. It speaks nothing but NMEA: a consumer connects and reads
/// GGA, RMC and GSA sentences generated from the daemon's fixes.
///
/// Every consumer is a client like any other: identified by the kernel
/// (SO_PEERCRED, pinned), counted against `max_clients` and its uid's share,
/// and judged by the same policy as a `location.watch` (it *is* one: the
/// daemon opens the watch for it, audited as such). A consumer the policy
/// refuses gets no sentence and is disconnected; a reduced one gets the
/// snapped position at the reduced rate; one that loses its authorization
/// (reload, reset) is disconnected. GeoClue then applies its own per-app
/// agent on top.
public final class NMEAServer: Service, CustomStringConvertible {
    struct Accepted: Sendable {
        var channel: any Channel
        var credentials: PeerCredentials
        var pin: ProcessPin
        var outlet: LoopBoundOutlet
    }

    let settings: NMEASocketSettings
    let dispatcher: Dispatcher
    let logger: Logger
    let identityResolver: PeerIdentityResolver
    private let serving = Atomic<Int>(0)

    public init(
        settings: NMEASocketSettings, dispatcher: Dispatcher, logger: Logger,
        identityResolver: PeerIdentityResolver = PeerIdentityResolver()
    ) {
        self.settings = settings
        self.dispatcher = dispatcher
        self.logger = logger
        self.identityResolver = identityResolver
    }

    public var description: String { "NMEAServer(\(settings.path))" }

    public func run() async throws {
        let path = settings.path
        try UnixSocketFile.prepare(path)
        // Created under the daemon's umask (0177, set once at start), then
        // opened up to the configured mode.
        let server: NIOAsyncChannel<Accepted, Never> = try await ServerBootstrap(
            group: MultiThreadedEventLoopGroup.singleton
        )
        .childChannelOption(.allowRemoteHalfClosure, value: false)
        .bind(unixDomainSocketPath: path) { channel in
            PeerCredentials.read(from: channel).flatMap { credentials in
                ProcessPin.take(from: channel, pid: credentials.pid).map { (credentials, $0) }
            }.flatMapThrowing { credentials, pin in
                let writer = NMEAWriter()
                try channel.pipeline.syncOperations.addHandler(writer)
                return Accepted(
                    channel: channel, credentials: credentials, pin: pin,
                    outlet: LoopBoundOutlet(writer, eventLoop: channel.eventLoop))
            }
        }
        defer { UnixSocketFile.remove(path) }
        do {
            try UnixSocketFile.secure(path, mode: settings.mode, group: settings.group)
        } catch {
            try? await server.channel.close()
            throw error
        }
        logger.info("serving NMEA", metadata: ["socket": "\(path)", "mode": "\(String(settings.mode, radix: 8))"])
        try await withGracefulShutdownHandler {
            try await withThrowingDiscardingTaskGroup { tasks in
                try await server.executeThenClose { consumers in
                    for try await consumer in consumers {
                        tasks.addTask { await self.serve(consumer) }
                    }
                }
            }
        } onGracefulShutdown: {
            server.channel.close(promise: nil)
        }
    }

    /// Serves one consumer until it leaves, is refused, or the daemon stops.
    func serve(_ accepted: Accepted) async {
        let channel = accepted.channel
        var logger = self.logger
        // The bound first: a flood of connections past it costs no identity lookup.
        guard serving.add(1, ordering: .relaxed).newValue <= settings.maxClients else {
            serving.subtract(1, ordering: .relaxed)
            accepted.pin.release()
            logger.notice(
                "refused an NMEA consumer: nmea.max_clients reached",
                metadata: ["uid": "\(accepted.credentials.uid)", "pid": "\(accepted.credentials.pid)"])
            try? await channel.close()
            return
        }
        defer { serving.subtract(1, ordering: .relaxed) }
        let identity = await identityResolver.identify(accepted.credentials, pin: accepted.pin)
        logger[metadataKey: "nmea"] = "uid=\(identity.uid) pid=\(identity.pid)"
        let registry = dispatcher.registry
        guard case .success(let connection) = await registry.admit(uid: identity.uid) else {
            logger.notice("refused an NMEA consumer: max_clients or its uid's share reached")
            try? await channel.close()
            return
        }
        // The consumer's one watch, judged and audited as any location.watch;
        // losing its authorization later ends it (the only message the
        // daemon would send), and the connection with it.
        let session = ClientSession(
            id: connection, identity: identity, maxSubscriptions: 1, updateOutlet: accepted.outlet,
            post: { _ in channel.close(promise: nil) })
        do {
            let (_, startUpdates) = try await dispatcher.locationWatch(WatchOptions(), session: session)
            logger.info("NMEA consumer connected")
            await withGracefulShutdownHandler {
                await startUpdates?()
                try? await channel.closeFuture.get()
            } onGracefulShutdown: {
                channel.close(promise: nil)
            }
        } catch {
            logger.notice("NMEA consumer refused", metadata: ["reason": "\(error.message)"])
            try? await channel.close()
        }
        session.close()
        await dispatcher.policy.connectionClosed(connection)
        await registry.release(uid: identity.uid)
        logger.debug("NMEA consumer disconnected")
    }
}
