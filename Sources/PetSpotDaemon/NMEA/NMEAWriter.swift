import FoundationEssentials
import NIOCore
import PetSpotLocation
import PetSpotNMEA
import PetSpotProtocol

/// An NMEA consumer's ``UpdateOutlet``: each update the fan-out hands it
/// (the fix as this consumer's grant shows it, reduced when reduced) goes
/// out as GGA, RMC and GSA sentences, straight to the channel on its loop.
///
/// While the consumer is not reading, only the newest fix is held (as for
/// a JSON watcher); it goes out when the channel drains. What the consumer
/// sends (gpsd writes probe strings to what it takes for a serial device)
/// is read and dropped at once: nothing it sends is kept or interpreted.
final class NMEAWriter: ChannelInboundHandler, UpdateOutlet {
    typealias InboundIn = ByteBuffer

    private var context: ChannelHandlerContext?
    private var pending: LocationFix?

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        pending = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func write(_ update: RenderedUpdate) {
        guard let context else { return }
        if pending == nil, context.channel.isWritable {
            context.writeAndFlush(NIOAny(Self.sentences(update.notification.fix, in: context)), promise: nil)
        } else {
            pending = update.notification.fix
            drain(context)
        }
    }

    func discard(subscription: Int) { pending = nil }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        context.fireChannelWritabilityChanged()
        drain(context)
    }

    private func drain(_ context: ChannelHandlerContext) {
        guard context.channel.isWritable, let fix = pending else { return }
        pending = nil
        context.writeAndFlush(NIOAny(Self.sentences(fix, in: context)), promise: nil)
    }

    private static func sentences(_ fix: LocationFix, in context: ChannelHandlerContext) -> ByteBuffer {
        let now = UTCTimestamp(secondsSince1970: Date().timeIntervalSince1970)
        return context.channel.allocator.buffer(string: NMEASentences.sentences(for: fix, now: now).joined())
    }
}
