import Foundation
import NIOCore
import NIOEmbedded
import PetSpotLocation
import PetSpotProtocol
import Testing

@testable import PetSpotDaemon

/// An NMEA consumer's connection: sentences for each fix; while the consumer
/// does not read, only the newest fix waits (in the connection's
/// `OutboundQueue`); what it sends is dropped; a half-close ends it.
@Suite struct NMEAConsumerHandlerTests {
    static func update(_ latitude: Double) -> RenderedUpdate {
        RenderedUpdate(
            UpdateNotification(
                fix: LocationFix(
                    coordinate: Coordinate(latitude: latitude, longitude: 2), horizontalAccuracy: 5, mode: .twoD,
                    source: .gpsd)), subscription: 1)
    }

    static func written(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while let buffer = try channel.readOutbound(as: ByteBuffer.self) { text += String(buffer: buffer) }
        return text
    }

    @Test func aConsumerThatDoesNotReadHoldsOnlyTheNewestFix() throws {
        let writer = NMEAConsumerHandler()
        let channel = EmbeddedChannel(handler: writer)
        writer.write(Self.update(1))
        let first = try Self.written(channel)
        #expect(first.hasPrefix("$GPGGA,") && first.contains(",0100.0000,N,") && first.contains("$GPRMC,"))
        // Not reading: three fixes arrive, one waits.
        channel.isWritable = false
        writer.write(Self.update(10))
        writer.write(Self.update(20))
        writer.write(Self.update(30))
        #expect(try Self.written(channel).isEmpty)
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        let drained = try Self.written(channel)
        #expect(drained.components(separatedBy: "$GPGGA").count == 2, "\(drained)")
        #expect(drained.contains(",3000.0000,N,"))
        // What the consumer sends is dropped, and a discarded subscription leaves nothing waiting.
        try channel.writeInbound(ByteBuffer(string: "$PMTK314,0,1,0,1,0,0*28\r\n"))
        #expect(try channel.readInbound(as: ByteBuffer.self) == nil)
        channel.isWritable = false
        writer.write(Self.update(40))
        writer.discard(subscription: 1)
        channel.isWritable = true
        channel.pipeline.fireChannelWritabilityChanged()
        #expect(try Self.written(channel).isEmpty)
        _ = try channel.finish()
    }

    /// A consumer that stops sending has left: its connection closes (and
    /// with it its slot), where a protocol client's half-close is answered first.
    @Test func aHalfCloseEndsTheConnection() throws {
        let channel = EmbeddedChannel(handler: NMEAConsumerHandler())
        try channel.connect(to: SocketAddress(unixDomainSocketPath: "/nmea")).wait()
        #expect(channel.isActive)
        channel.pipeline.fireUserInboundEventTriggered(ChannelEvent.inputClosed)
        #expect(!channel.isActive)
        _ = try? channel.finish()
    }
}
