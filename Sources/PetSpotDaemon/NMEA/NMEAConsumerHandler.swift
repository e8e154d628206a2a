import FoundationEssentials
import NIOCore
import PetSpotLocation
import PetSpotNMEA
import PetSpotProtocol
import Synchronization

/// The NMEA socket's line producer: an update as GGA, RMC and GSA sentences
/// (``NMEASentences``), the fix as this consumer's grant shows it (reduced
/// when reduced); a fix without a receiver time is stamped now.
struct NMEAUpdateLines: UpdateLines {
    func line(_ notification: UpdateNotification, subscription: Int, allocator: ByteBufferAllocator) -> ByteBuffer {
        let now = UTCTimestamp(secondsSince1970: Date().timeIntervalSince1970)
        var buffer = allocator.buffer(capacity: 256)
        for sentence in NMEASentences.sentences(for: notification.fix, now: now) { buffer.writeString(sentence) }
        return buffer
    }
}

/// One NMEA consumer's connection, on its event loop: its only writer, and
/// the ``UpdateOutlet`` the fan-out writes its watch's updates to.
///
/// - Each update goes out as sentences (``NMEAUpdateLines``) through the
///   connection's ``OutboundQueue``, by the protocol connections' rule:
///   straight out (``DirectSend``) while nothing waits and the consumer reads; otherwise
///   only the newest fix is held, and goes out when the channel drains.
/// - What the consumer sends (gpsd writes probe strings to what it takes for
///   a serial device) is read and dropped at once: nothing it sends is kept
///   or interpreted.
/// - A consumer that stops sending (half-close) has left: the connection
///   closes, and its slot with it.
final class NMEAConsumerHandler: ChannelInboundHandler, UpdateOutlet {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var context: ChannelHandlerContext?
    private var queue = OutboundQueue()
    private let lines = NMEAUpdateLines()
    /// Sentences sent straight to the socket while NIO holds nothing of it.
    private var direct = DirectSend()

    init() { ConnectionCensus.handlers.wrappingAdd(1, ordering: .relaxed) }

    deinit { ConnectionCensus.handlers.wrappingSubtract(1, ordering: .relaxed) }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        direct = DirectSend(context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        queue.discardAll()
        direct.end()
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            context.close(promise: nil)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        queue.discardAll()
        direct.end()
        context.fireChannelInactive()
    }

    func write(_ update: RenderedUpdate) {
        guard let context else { return }
        if queue.takesUpdatesDirectly, direct.isWritable {
            let sentences = lines.line(
                update.notification, subscription: update.subscription, allocator: context.channel.allocator)
            guard let rest = direct.send(sentences) else { return }
            direct.wentThroughPipeline()
            context.writeAndFlush(wrapOutboundOut(rest), promise: nil)
        } else {
            queue.hold(update)
            writeHeld(context)
        }
    }

    func discard(subscription: Int) { queue.discard(subscription: subscription) }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        context.fireChannelWritabilityChanged()
        writeHeld(context)
    }

    /// Writes the held fix while the consumer reads.
    private func writeHeld(_ context: ChannelHandlerContext) {
        var wrote = false
        while context.channel.isWritable, let sentences = queue.nextUpdate(context.channel.allocator, as: lines) {
            context.write(wrapOutboundOut(sentences), promise: nil)
            wrote = true
        }
        if wrote {
            direct.wentThroughPipeline()
            context.flush()
        }
    }
}
