import Glibc
import Logging
import NIOCore
import NIOPosix
import PetSpotStaticSource
import Testing
import TestSupport

@testable import PetSpotDaemon

/// ``DirectSend`` on a real Unix socket pair, one end a NIO channel with a
/// small send buffer, the other read here: a line goes out whole or its
/// rest comes back for NIO (no byte lost or doubled), nothing overtakes
/// what NIO holds, and nothing is sent once the connection closed (its
/// descriptor number may already be another connection's): the handlers
/// that send directly hear of the close before any later write.
@Suite struct DirectSendTests {
    /// Keeps its context, so the test can act on the loop as a handler does.
    final class Probe: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        var context: ChannelHandlerContext?
        func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    }

    /// A connected pair: the channel (send buffer of a few KiB) and the peer's descriptor.
    struct Pair: Sendable {
        let channel: any Channel
        let probe: NIOLoopBound<Probe>
        let peer: Int32

        init() async throws {
            var descriptors: [Int32] = [0, 0]
            try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0)
            var size: Int32 = 4096
            setsockopt(descriptors[0], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            let loop = MultiThreadedEventLoopGroup.singleton.next()
            let probe = try await loop.submit { NIOLoopBound(Probe(), eventLoop: loop) }.get()
            channel = try await ClientBootstrap(group: loop).channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(probe.value) }
            }.withConnectedSocket(descriptors[0]).get()
            self.probe = probe
            peer = descriptors[1]
        }

        /// Runs `body` on the channel's loop with a fresh ``DirectSend`` and the context.
        func onLoop<T: Sendable>(
            _ body: @escaping @Sendable (inout DirectSend, ChannelHandlerContext) -> T
        ) async throws -> T {
            try await channel.eventLoop.submit { [probe] in
                let context = probe.value.context!
                var direct = DirectSend(context)
                return body(&direct, context)
            }.get()
        }

        /// Reads exactly `count` bytes (10 s at most for each read).
        func read(_ count: Int) throws -> [UInt8] {
            var bytes: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while bytes.count < count {
                var ready = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
                try #require(poll(&ready, 1, 10_000) == 1, "only \(bytes.count) of \(count) bytes arrived")
                let got = chunk.withUnsafeMutableBytes {
                    Glibc.read(peer, $0.baseAddress, min($0.count, count - bytes.count))
                }
                try #require(got > 0)
                bytes += chunk[..<got]
            }
            return bytes
        }

        /// Whether nothing is waiting to be read.
        var peerIsEmpty: Bool {
            var ready = pollfd(fd: peer, events: Int16(POLLIN), revents: 0)
            return poll(&ready, 1, 0) == 0
        }

        func close() async {
            try? await channel.close()
            Glibc.close(peer)
        }
    }

    static func line(_ count: Int, seed: UInt8 = 0) -> ByteBuffer {
        ByteBuffer(bytes: (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31) &+ seed })
    }

    @Test func aLineTheSocketTakesIsSentWholeAndNothingIsLeftForNIO() async throws {
        let pair = try await Pair()
        defer { Task { await pair.close() } }
        let line = Self.line(300)
        let rest = try await pair.onLoop { direct, _ in direct.send(line) }
        #expect(rest == nil)
        #expect(try pair.read(300) == Array(line.readableBytesView))
        #expect(pair.peerIsEmpty)
    }

    @Test func aLineLongerThanTheSocketTakesComesBackAsItsRestAndNothingIsLostOrDoubled() async throws {
        let pair = try await Pair()
        defer { Task { await pair.close() } }
        let line = Self.line(256 << 10)
        // The rest goes through NIO, as the handlers write it.
        let restCount = try await pair.onLoop { direct, context -> Int? in
            guard let rest = direct.send(line) else { return nil }
            context.writeAndFlush(NIOAny(rest), promise: nil)
            return rest.readableBytes
        }
        let left = try #require(restCount, "a 256 KiB line went whole into a 4 KiB socket buffer")
        #expect(left > 0 && left < line.readableBytes, "nothing was sent directly")
        #expect(try pair.read(line.readableBytes) == Array(line.readableBytesView))
        #expect(pair.peerIsEmpty)
    }

    @Test func nothingIsSentWhileNIOHoldsBytesAndSendingResumesOnceItHoldsNone() async throws {
        let pair = try await Pair()
        defer { Task { await pair.close() } }
        let big = Self.line(256 << 10)
        let small = Self.line(300, seed: 7)
        let peer = pair.peer
        // NIO holds most of a big write. The peer then reads some, so the
        // socket has room while NIO (its loop busy here) has not yet written
        // more: a line sent now would overtake what NIO holds.
        let (heldBack, first) = try await pair.onLoop { direct, context -> (Bool, [UInt8]) in
            context.writeAndFlush(NIOAny(big), promise: nil)
            direct.wentThroughPipeline()
            var chunk = [UInt8](repeating: 0, count: 8192)
            let got = chunk.withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            return (direct.send(small) == small, Array(chunk[..<max(0, got)]))
        }
        #expect(!first.isEmpty)
        #expect(heldBack, "a line was sent directly while NIO held bytes")
        #expect(try first + pair.read(big.readableBytes - first.count) == Array(big.readableBytesView))
        // NIO wrote the rest once the peer read: nothing holds, so the line goes directly.
        let sent = try await pair.onLoop { direct, _ -> Bool in
            direct.wentThroughPipeline()
            return direct.send(small) == nil
        }
        #expect(sent)
        #expect(try pair.read(small.readableBytes) == Array(small.readableBytesView))
    }

    /// The handlers that send directly (a protocol connection's and an NMEA
    /// consumer's), each on a real socket. NIO closes the descriptor first
    /// and tells the handler after (`channelInactive`), within the close:
    /// an update written next, after the next socket opened took the closed
    /// one's number, must go nowhere (a debug build also asserts that no
    /// send comes between the two).
    @Test(arguments: ["protocol", "nmea"])
    func nothingIsSentOnceTheConnectionClosedEvenToASocketThatReusedItsNumber(_ kind: String) async throws {
        var descriptors: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0)
        let peer = descriptors[1]
        defer { Glibc.close(peer) }
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let handler = try await loop.submit { NIOLoopBound(Self.handler(kind), eventLoop: loop) }.get()
        let channel = try await ClientBootstrap(group: loop).channelInitializer { channel in
            channel.eventLoop.makeCompletedFuture { try channel.pipeline.syncOperations.addHandler(handler.value) }
        }.withConnectedSocket(descriptors[0]).get()
        let notification = ConnectionHandlerTests.update(latitude: 52)
        // Sent while open: the handler's direct path is in use.
        let (sentOpen, reused, leaked) = try await loop.submit { () -> (Bool, Bool, Bool) in
            let outlet = handler.value as any UpdateOutlet
            let update = RenderedUpdate(notification, subscription: 1)
            var byte: UInt8 = 0
            outlet.write(update)
            var first = [UInt8](repeating: 0, count: 4096)
            let sentOpen =
                first.withUnsafeMutableBytes { recv(peer, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) } > 0
            let old = try? channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(
                of: NIOBSDSocket.Handle.self
            ) { $0 }
            channel.close(promise: nil)
            var other: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &other) == 0 else {
                throw IOError(errnoCode: errno, reason: "socketpair")
            }
            defer { for descriptor in other { Glibc.close(descriptor) } }
            outlet.write(update)
            let leaked = other.contains { recv($0, &byte, 1, Int32(MSG_DONTWAIT)) > 0 }
            return (sentOpen, other.contains(old ?? -2), leaked)
        }.get()
        #expect(sentOpen, "the update written while open did not arrive")
        #expect(!leaked, "a closed connection's update went to the socket that reused its descriptor")
        if !reused { print("the new socket did not reuse the closed descriptor's number: the leak was not tried") }
        // After the update it read while open, the peer reads the end of the stream.
        var byte: UInt8 = 0
        #expect(Glibc.read(peer, &byte, 1) == 0, "the peer got bytes after the close")
    }

    /// A handler that sends updates directly, as the daemon builds it.
    static func handler(_ kind: String) -> any ChannelHandler & UpdateOutlet {
        guard kind == "protocol" else { return NMEAConsumerHandler() }
        let logger = Logger(label: "test")
        let hub = StaticFixProducer(position: ConnectionHandlerTests.position).makePosition()
        let dispatcher = Dispatcher(
            hub: hub, policy: OpenAccess(), registry: ClientRegistry(capacity: 8), logger: logger,
            fanOut: WatchFanOut(group: MultiThreadedEventLoopGroup.singleton, hub: hub), audit: nil)
        return ConnectionHandler(dispatcher: dispatcher, auditBatch: nil, maxInFlight: 64, logger: logger)
    }
}
