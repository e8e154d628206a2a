import Foundation
import Logging
import NIOCore
import NIOEmbedded
import NIOPosix
import PetSpotFixHub
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import PetSpotStaticSource
import Synchronization
import Testing
import TestSupport

@testable import PetSpotDaemon

/// A connection's one handler and its one outbound queue, on an embedded
/// channel: the socket's rules are enforced here, so they are tested here.
/// - audit before answer: an answer leaves only once its loop's audit batch wrote its record;
/// - order: answers in the order produced, a posted message after them, updates never ahead of a waiting answer;
/// - the bound: at most `max_requests_in_flight` lines taken, and none while the client does not read;
/// - updates: straight out while the client reads, newest-only per subscription while it does not.
@Suite struct ConnectionHandlerTests {
    static let position = try! StaticPosition(latitude: 52.2297, longitude: 21.0122, horizontalAccuracy: 30)

    /// A handler on an embedded channel, attached to a session whose grant
    /// is kept (so `location.get` is answered at once, with no task).
    struct Connection {
        let directory: TemporaryDirectory
        let channel: EmbeddedChannel
        let handler: ConnectionHandler
        let batch: AuditBatch?
        let auditPath: String

        init(audited: Bool = true, maxInFlight: Int = 64, batchBytes: Int = 256 * 1024) throws {
            directory = try TemporaryDirectory()
            auditPath = directory.file("audit.jsonl")
            let logger = Logger(label: "test")
            let hub = StaticFixProducer(position: ConnectionHandlerTests.position).makePosition()
            let audit = audited ? AuditLog(path: auditPath, maxBytes: 1 << 20, logger: logger) : nil
            let dispatcher = Dispatcher(
                hub: hub, policy: OpenAccess(), registry: ClientRegistry(capacity: 8), logger: logger,
                fanOut: WatchFanOut(group: MultiThreadedEventLoopGroup.singleton, hub: hub), audit: audit)
            let channel = EmbeddedChannel()
            let batch = audit.map {
                AuditBatch(eventLoop: channel.embeddedEventLoop, audit: $0, maximumHeldBytes: batchBytes)
            }
            let handler = ConnectionHandler(
                dispatcher: dispatcher, auditBatch: batch, maxInFlight: maxInFlight, logger: logger)
            try channel.pipeline.syncOperations.addHandler(handler)
            try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
            self.channel = channel
            self.batch = batch
            self.handler = handler
            let session = ClientSession(
                id: ConnectionID(1), identity: ClientIdentity(uid: 1000, gid: 1000, pid: 20, user: "alice"))
            handler.attach(session)
        }

        func send(_ lines: String...) throws {
            for line in lines { try channel.writeInbound(ByteBuffer(string: line)) }
            channel.pipeline.fireChannelReadComplete()
        }

        /// What the client has received, one JSON message per line.
        func received() throws -> [JSONValue] {
            var messages: [JSONValue] = []
            while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
                #expect(buffer.readableBytesView.last == UInt8(ascii: "\n"))
                messages.append(try JSONValue.parse(bytes: buffer.readableBytesView.dropLast()))
            }
            return messages
        }

        var auditRecords: Int {
            ((try? String(contentsOfFile: auditPath, encoding: .utf8)) ?? "").split(separator: "\n").count
        }
    }

    static func get(_ id: Int) -> String { #"{"jsonrpc":"2.0","id":\#(id),"method":"location.get"}"# }

    static func update(latitude: Double) -> UpdateNotification {
        UpdateNotification(
            fix: LocationFix(coordinate: Coordinate(latitude: latitude, longitude: 21), mode: .twoD, source: .simulated)
        )
    }

    // MARK: audit before answer

    @Test func anAnswerLeavesOnlyOnceItsRecordIsWritten() throws {
        let connection = try Connection()
        try connection.send(Self.get(1), Self.get(2))
        // Answered at once, held: no record written yet, so nothing sent.
        #expect(connection.handler.inFlight == 2)
        #expect(try connection.received().isEmpty)
        #expect(connection.auditRecords == 0)
        // The end of the loop's pass: one write of both records, then both answers.
        connection.channel.embeddedEventLoop.run()
        #expect(connection.auditRecords == 2)
        #expect(connection.batch?.releases == 1)
        #expect(try connection.received().map { $0["id"] } == [1, 2])
        #expect(connection.handler.inFlight == 0)
    }

    /// A record that fills the batch releases it at once, from inside the
    /// hold: the answer it belongs to must already be queued and go with it,
    /// not wait (held, its record written) for a release that never comes.
    @Test func anAnswerWhoseRecordFillsTheBatchLeavesWithIt() throws {
        let connection = try Connection(batchBytes: 1)
        try connection.send(Self.get(1))
        // No pass has ended: the release came from the record itself.
        #expect(connection.auditRecords == 1)
        #expect(try connection.received().map { $0["id"] } == [1])
        #expect(connection.handler.inFlight == 0)
        try connection.send(Self.get(2), Self.get(3))
        #expect(connection.auditRecords == 3)
        #expect(try connection.received().map { $0["id"] } == [2, 3])
        connection.channel.embeddedEventLoop.run()
        #expect(connection.batch?.releases == 3)
        #expect(try connection.received().isEmpty)
    }

    @Test func withoutAnAuditLogAnswersGoAtOnceFlushedPerReadBurst() throws {
        let connection = try Connection(audited: false)
        try connection.send(Self.get(1), Self.get(2), Self.get(3))
        #expect(try connection.received().map { $0["id"] } == [1, 2, 3])
        #expect(connection.handler.inFlight == 0)
    }

    // MARK: order

    @Test func anUpdateNeverOvertakesAnAnswerWaitingForItsRecord() throws {
        let connection = try Connection()
        try connection.send(Self.get(1))
        connection.handler.write(RenderedUpdate(Self.update(latitude: 7), subscription: 1))
        connection.handler.write(RenderedUpdate(Self.update(latitude: 8), subscription: 1))
        #expect(try connection.received().isEmpty)
        connection.channel.embeddedEventLoop.run()
        let received = try connection.received()
        #expect(received.count == 2)
        #expect(received.first?["id"] == 1)
        // Only the newest update of the subscription waited.
        #expect(received.last?["params"]?["fix"]?["latitude"] == 8)
    }

    @Test func aPostedMessageGoesAfterTheAnswersQueuedBeforeIt() throws {
        let connection = try Connection()
        try connection.send(Self.get(1))
        connection.handler.post(RPCCodec.notification(method: "agent.prompt", params: ["n": 1]))
        try connection.send(Self.get(2))
        #expect(try connection.received().isEmpty)
        connection.channel.embeddedEventLoop.run()
        let received = try connection.received()
        #expect(received.map { $0["id"] ?? $0["method"] } == [1, "agent.prompt", 2])
        // A posted message holds no request slot.
        #expect(connection.handler.inFlight == 0)
    }

    @Test func aBrokenLineIsAnsweredAtOnceInItsPlace() throws {
        let connection = try Connection(audited: false)
        try connection.send(Self.get(1), "not json", Self.get(2))
        let received = try connection.received()
        try #require(received.count == 3)
        #expect(received[1]["error"]?["code"] == -32700)
        #expect(received.map { $0["id"] } == [1, .null, 2])
    }

    // MARK: the bound

    @Test func atMostMaxInFlightLinesAreTakenTheRestWaitUnread() throws {
        let connection = try Connection(maxInFlight: 2)
        try connection.send(Self.get(1), Self.get(2), Self.get(3), Self.get(4), Self.get(5))
        #expect(connection.handler.inFlight == 2)
        #expect(connection.handler.unprocessed.count == 3)
        // Each release frees the slots; the waiting lines are taken in order.
        connection.channel.embeddedEventLoop.run()
        #expect(connection.auditRecords == 5)
        #expect(try connection.received().map { $0["id"] } == [1, 2, 3, 4, 5])
        #expect(connection.handler.unprocessed.isEmpty)
        #expect(connection.handler.inFlight == 0)
    }

    @Test func noLineIsTakenWhileTheClientDoesNotRead() throws {
        let connection = try Connection(audited: false)
        connection.channel.isWritable = false
        try connection.send(Self.get(1), Self.get(2))
        #expect(connection.handler.inFlight == 0)
        #expect(connection.handler.unprocessed.count == 2)
        #expect(try connection.received().isEmpty)
        connection.channel.isWritable = true
        connection.channel.pipeline.fireChannelWritabilityChanged()
        #expect(try connection.received().map { $0["id"] } == [1, 2])
    }

    @Test func nothingIsTakenBeforeTheSessionIsAttached() throws {
        let logger = Logger(label: "test")
        let hub = StaticFixProducer(position: Self.position).makePosition()
        let dispatcher = Dispatcher(
            hub: hub, policy: OpenAccess(), registry: ClientRegistry(capacity: 8), logger: logger,
            fanOut: WatchFanOut(group: MultiThreadedEventLoopGroup.singleton, hub: hub))
        let handler = ConnectionHandler(dispatcher: dispatcher, auditBatch: nil, maxInFlight: 4, logger: logger)
        let channel = EmbeddedChannel(handler: handler)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 9)).wait()
        try channel.writeInbound(ByteBuffer(string: Self.get(1)))
        #expect(handler.inFlight == 0)
        #expect(handler.unprocessed.count == 1)
        #expect(try channel.readOutbound(as: ByteBuffer.self) == nil)
    }

    // MARK: the connection's end

    @Test func aClientThatStopsSendingGetsEveryAnswerThenTheConnectionCloses() throws {
        let connection = try Connection()
        try connection.send(Self.get(1), Self.get(2))
        connection.channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        // The answers wait for their records: the connection stays open for them.
        #expect(connection.channel.isActive)
        connection.channel.embeddedEventLoop.run()
        #expect(try connection.received().map { $0["id"] } == [1, 2])
        #expect(!connection.channel.isActive)
    }

    @Test func theIdleTimeoutClosesOnlyAConnectionThatHoldsNothing() throws {
        let connection = try Connection()
        try connection.send(Self.get(1))
        // An answer still waits: not idle.
        connection.channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        #expect(connection.channel.isActive)
        connection.channel.embeddedEventLoop.run()
        _ = try connection.received()
        connection.channel.pipeline.fireUserInboundEventTriggered(IdleStateHandler.IdleStateEvent.read)
        #expect(!connection.channel.isActive)
    }

    @Test func aLineOverTheLimitIsRefusedAndTheConnectionClosed() throws {
        let connection = try Connection(audited: false)
        let padding = String(repeating: " ", count: RPCCodec.maximumLineLength)
        try connection.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"# + padding)
        let received = try connection.received()
        #expect(received.count == 1)
        #expect(received.first?["error"]?["code"] == -32600)
        #expect(received.first?["id"] == .null)
        #expect(!connection.channel.isActive)
    }

    // MARK: updates

    /// The lines written so far, as (subscription, latitude).
    static func updates(_ received: [JSONValue]) -> [(Int, Double)] {
        received.compactMap { message in
            guard case .number(let subscription)? = message["params"]?["subscription"],
                case .number(let latitude)? = message["params"]?["fix"]?["latitude"]
            else { return nil }
            return (Int(subscription), latitude)
        }
    }

    @Test func updatesGoAtOnceWhileTheClientReads() throws {
        let connection = try Connection()
        connection.handler.write(RenderedUpdate(Self.update(latitude: 1), subscription: 3))
        connection.handler.write(RenderedUpdate(Self.update(latitude: 2), subscription: 4))
        let lines = Self.updates(try connection.received())
        #expect(lines.map(\.0) == [3, 4])
        #expect(lines.map(\.1) == [1, 2])
    }

    @Test func keepsOnlyTheNewestUpdatePerSubscriptionWhileTheClientIsNotReading() throws {
        let connection = try Connection()
        connection.channel.isWritable = false
        for latitude in 1...5 {
            connection.handler.write(RenderedUpdate(Self.update(latitude: Double(latitude)), subscription: 2))
        }
        connection.handler.write(RenderedUpdate(Self.update(latitude: 10), subscription: 1))
        connection.handler.write(RenderedUpdate(Self.update(latitude: 20), subscription: 7))
        connection.handler.discard(subscription: 7)
        #expect(try connection.received().isEmpty)
        #expect(OutboundQueue.heldUpdateBytes.load(ordering: .relaxed) > 0)

        connection.channel.isWritable = true
        connection.channel.pipeline.fireChannelWritabilityChanged()
        let lines = Self.updates(try connection.received())
        #expect(lines.map(\.0) == [1, 2])
        #expect(lines.map(\.1) == [10, 5])
    }

    /// A line written at once carries the pass's age; a held one measures
    /// its age when it goes out, so it says how long it waited.
    @Test func aHeldUpdateMeasuresItsAgeWhenItGoesOut() throws {
        let received = ContinuousClock.now - .seconds(100)
        let fix = LocationFix(
            coordinate: Coordinate(latitude: 1, longitude: 2), mode: .twoD, source: .simulated, receivedAt: received)
        let stamped = UpdateNotification(fix: fix).stamped(at: received + .seconds(1))
        let connection = try Connection()

        connection.handler.write(RenderedUpdate(stamped, subscription: 1))
        #expect(try connection.received().compactMap { $0["params"]?["fix"]?["age"] } == [1])

        connection.channel.isWritable = false
        connection.handler.write(RenderedUpdate(stamped, subscription: 1))
        connection.channel.isWritable = true
        connection.channel.pipeline.fireChannelWritabilityChanged()
        let ages = try connection.received().compactMap { message -> Double? in
            if case .number(let age)? = message["params"]?["fix"]?["age"] { age } else { nil }
        }
        #expect(ages.count == 1)
        #expect(ages.allSatisfy { $0 >= 100 })
    }

    @Test func writabilityChangesPassThrough() throws {
        final class Counter: ChannelInboundHandler {
            typealias InboundIn = ByteBuffer
            var changes = 0
            func channelWritabilityChanged(context: ChannelHandlerContext) { changes += 1 }
        }
        let connection = try Connection()
        let counter = Counter()
        try connection.channel.pipeline.syncOperations.addHandler(counter)
        connection.channel.isWritable = false
        connection.channel.pipeline.fireChannelWritabilityChanged()
        #expect(counter.changes == 1)
    }
}
