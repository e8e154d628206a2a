import Foundation
import Logging
import NIOCore
import NIOPosix
import PetSpotLocation
import PetSpotSettings
import PetSpotStaticSource
import Synchronization
import TestSupport
import Testing

@testable import PetSpotDaemon

/// The NMEA socket is served by the one ``SocketServer``: its connections
/// get the child options every socket's connections get (the small
/// receive buffers, half-closure left to the role), read from an accepted
/// NMEA consumer's channel.
@Suite(.timeLimit(.minutes(2))) struct SocketServerOptionsTests {
    /// What an accepted connection's channel said of its options.
    struct Seen: Sendable {
        var receiveBuffers: AdaptiveRecvByteBufferAllocator?
        var halfClosure: Bool?
    }

    /// The NMEA role, reading each accepted channel's options once its handlers are in place.
    struct Probe: ConnectionRole {
        let nmea: NMEAConsumers
        let seen: @Sendable (Seen) -> Void

        var noun: String { nmea.noun }
        var ownBound: (limit: Int, key: String)? { nmea.ownBound }

        func addHandlers(to channel: any Channel) throws -> NMEAConsumerHandler {
            let handler = try nmea.addHandlers(to: channel)
            let options = channel.syncOptions
            seen(
                Seen(
                    receiveBuffers: try options?.getOption(.recvAllocator) as? AdaptiveRecvByteBufferAllocator,
                    halfClosure: try options?.getOption(.allowRemoteHalfClosure)))
            return handler
        }

        func mayBePromptAgent(_ identity: ClientIdentity) async -> Bool { await nmea.mayBePromptAgent(identity) }
        func refusalLine(_ refusal: ClientRegistry.Refusal) -> ByteBuffer? { nmea.refusalLine(refusal) }
        func session(
            id: ConnectionID, identity: ClientIdentity, handler: NIOLoopBound<NMEAConsumerHandler>,
            outlet: LoopBoundOutlet, channel: any Channel
        ) -> ClientSession {
            nmea.session(id: id, identity: identity, handler: handler, outlet: outlet, channel: channel)
        }
        func start(
            _ session: ClientSession, handler: NIOLoopBound<NMEAConsumerHandler>, channel: any Channel,
            logger: Logger
        ) async {
            await nmea.start(session, handler: handler, channel: channel, logger: logger)
        }
    }

    @Test func anNMEAConsumersChannelHasTheProtocolSocketsOptions() async throws {
        let directory = try TemporaryDirectory(prefix: "psnmea")
        defer { directory.remove() }
        let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        let hub = StaticFixProducer(
            position: try StaticPosition(latitude: 52.2297, longitude: 21.0122, horizontalAccuracy: 30)
        ).makePosition()
        let dispatcher = Dispatcher(
            hub: hub, policy: OpenAccess(), registry: ClientRegistry(capacity: 8), logger: logger,
            fanOut: WatchFanOut(group: MultiThreadedEventLoopGroup.singleton, hub: hub))
        let path = directory.file("nmea.sock")
        let (events, event) = AsyncStream<Seen>.makeStream()
        let (ready, isReady) = AsyncStream<Void>.makeStream()
        let server = SocketServer(
            role: Probe(
                nmea: NMEAConsumers(settings: NMEASettings(socket: path), dispatcher: dispatcher),
                seen: { event.yield($0) }),
            path: path, mode: 0o600, socketGroup: nil, dispatcher: dispatcher, logger: logger,
            onReady: { isReady.yield() })
        let serving = Task { try await server.run() }
        defer { serving.cancel() }
        var readiness = ready.makeAsyncIterator()
        await readiness.next()

        let consumer = try RawSocket(path: path)
        var seen = events.makeAsyncIterator()
        let options = try #require(await seen.next())
        let expected = SocketServer<RPCConnections>.receiveBuffers
        let buffers = try #require(options.receiveBuffers, "not the adaptive allocator")
        #expect(
            (buffers.minimum, buffers.initial, buffers.maximum)
                == (expected.minimum, expected.initial, expected.maximum))
        #expect(buffers.initial == 512, "NIO's default start (2 KiB) per consumer")
        #expect(options.halfClosure == true)
        withExtendedLifetime(consumer) {}
    }
}
