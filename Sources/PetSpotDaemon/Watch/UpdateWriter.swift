import NIOCore
import PetSpotProtocol

/// A connection's ``UpdateOutlet``: writes `location.update` lines straight
/// to the channel, on its event loop.
///
/// While the client is not reading (the channel is not writable), each
/// subscription keeps only its newest undelivered line (SPEC §5: a watcher
/// that does not read never slows other clients, and the daemon keeps only
/// the newest update for it); they go out when the channel drains. The fix's
/// `age` is that of the fan-out pass for a line written at once, and is
/// measured again when a held line goes out, so a line that waited says so.
///
/// It sits in the pipeline (nearest the socket) to hear of writability
/// changes; everything else passes through untouched.
final class UpdateWriter: ChannelInboundHandler, UpdateOutlet {
    typealias InboundIn = ByteBuffer

    private var context: ChannelHandlerContext?
    /// Newest undelivered line per subscription, while the channel is full.
    private var pending: [Int: UpdateNotification] = [:]

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        pending.removeAll()
    }

    func write(_ update: RenderedUpdate) {
        guard let context else { return }
        if pending.isEmpty, context.channel.isWritable {
            context.writeAndFlush(NIOAny(update.line), promise: nil)
        } else {
            // A held line measures its age when it goes out.
            pending[update.subscription] = update.notification.unstamped
            drain(context)
        }
    }

    func discard(subscription: Int) { pending[subscription] = nil }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        // Replies the async writer held back go first, then the newest updates.
        context.fireChannelWritabilityChanged()
        drain(context)
    }

    /// Writes held lines, oldest subscription first, while the channel takes them.
    private func drain(_ context: ChannelHandlerContext) {
        guard context.channel.isWritable, !pending.isEmpty else { return }
        for subscription in pending.keys.sorted() {
            guard context.channel.isWritable, let notification = pending.removeValue(forKey: subscription) else {
                break
            }
            context.write(NIOAny(Self.line(notification, subscription: subscription, in: context)), promise: nil)
        }
        context.flush()
    }

    private static func line(
        _ notification: UpdateNotification, subscription: Int, in context: ChannelHandlerContext
    ) -> ByteBuffer {
        var buffer = context.channel.allocator.buffer(capacity: notification.maximumLineLength)
        notification.write(subscription: subscription) { buffer.writeBytes($0) }
        return buffer
    }
}
