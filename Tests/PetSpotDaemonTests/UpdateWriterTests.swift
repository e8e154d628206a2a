import NIOCore
import NIOEmbedded
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import Testing

@testable import PetSpotDaemon

/// A connection's update writer: straight to the socket while the client
/// reads, newest-only per subscription while it does not (SPEC §5).
@Suite struct UpdateWriterTests {
    static func update(latitude: Double) -> UpdateNotification {
        UpdateNotification(
            fix: LocationFix(coordinate: Coordinate(latitude: latitude, longitude: 21), mode: .twoD, source: .simulated)
        )
    }

    /// The lines written so far, as (subscription, latitude).
    static func written(_ channel: EmbeddedChannel) throws -> [(Int, Double)] {
        var lines: [(Int, Double)] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            let message = try JSONValue.parse(bytes: buffer.readableBytesView.dropLast())
            guard case .object(let params)? = message["params"],
                case .number(let subscription)? = params["subscription"],
                case .number(let latitude)? = params["fix"]?["latitude"]
            else {
                Issue.record("not an update: \(String(buffer: buffer))")
                continue
            }
            lines.append((Int(subscription), latitude))
        }
        return lines
    }

    @Test func writesAtOnceWhileTheClientReads() throws {
        let writer = UpdateWriter()
        let channel = EmbeddedChannel(handler: writer)
        writer.write(RenderedUpdate(Self.update(latitude: 1), subscription: 3))
        writer.write(RenderedUpdate(Self.update(latitude: 2), subscription: 4))
        let lines = try Self.written(channel)
        #expect(lines.map(\.0) == [3, 4])
        #expect(lines.map(\.1) == [1, 2])
    }

    @Test func keepsOnlyTheNewestLinePerSubscriptionWhileTheClientIsNotReading() throws {
        let writer = UpdateWriter()
        let channel = EmbeddedChannel(handler: writer)
        channel.isWritable = false
        for latitude in 1...5 { writer.write(RenderedUpdate(Self.update(latitude: Double(latitude)), subscription: 2)) }
        writer.write(RenderedUpdate(Self.update(latitude: 10), subscription: 1))
        writer.write(RenderedUpdate(Self.update(latitude: 20), subscription: 7))
        writer.discard(subscription: 7)
        #expect(try Self.written(channel).isEmpty)

        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        let lines = try Self.written(channel)
        #expect(lines.map(\.0) == [1, 2])
        #expect(lines.map(\.1) == [10, 5])
    }

    /// A line written at once carries the pass's age; a held one measures
    /// its age when it goes out, so it says how long it waited.
    @Test func aHeldLineMeasuresItsAgeWhenItGoesOut() throws {
        let received = ContinuousClock.now - .seconds(100)
        let fix = LocationFix(
            coordinate: Coordinate(latitude: 1, longitude: 2), mode: .twoD, source: .simulated, receivedAt: received)
        let stamped = UpdateNotification(fix: fix).stamped(at: received + .seconds(1))
        let writer = UpdateWriter()
        let channel = EmbeddedChannel(handler: writer)

        writer.write(RenderedUpdate(stamped, subscription: 1))
        #expect(try Self.ages(channel) == [1])

        channel.isWritable = false
        writer.write(RenderedUpdate(stamped, subscription: 1))
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        let ages = try Self.ages(channel)
        #expect(ages.count == 1)
        #expect(ages.allSatisfy { $0 >= 100 })
    }

    static func ages(_ channel: EmbeddedChannel) throws -> [Double] {
        var ages: [Double] = []
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) {
            let message = try JSONValue.parse(bytes: buffer.readableBytesView.dropLast())
            if case .number(let age)? = message["params"]?["fix"]?["age"] { ages.append(age) }
        }
        return ages
    }

    @Test func writabilityChangesPassThrough() throws {
        final class Counter: ChannelInboundHandler {
            typealias InboundIn = ByteBuffer
            var changes = 0
            func channelWritabilityChanged(context: ChannelHandlerContext) { changes += 1 }
        }
        let counter = Counter()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandlers([UpdateWriter(), counter])
        channel.isWritable = false
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(counter.changes == 1)
    }
}
