import NIOCore
import PetSpotProtocol
import Synchronization

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
    /// Newest undelivered line per subscription, while the channel is full,
    /// with the size of its line when it was held.
    private var pending: [Int: (notification: UpdateNotification, bytes: Int)] = [:]

    /// Bytes of update lines held for clients that do not read, over every
    /// connection of the process (`petspot_held_update_bytes`).
    static let heldBytes = Atomic<Int>(0)

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        for subscription in Array(pending.keys) { release(subscription) }
    }

    func write(_ update: RenderedUpdate) {
        guard let context else { return }
        if pending.isEmpty, context.channel.isWritable {
            context.writeAndFlush(NIOAny(update.line), promise: nil)
        } else {
            // A held line measures its age when it goes out.
            release(update.subscription)
            let bytes = update.line.readableBytes
            pending[update.subscription] = (update.notification.unstamped, bytes)
            Self.heldBytes.wrappingAdd(bytes, ordering: .relaxed)
            drain(context)
        }
    }

    func discard(subscription: Int) { release(subscription) }

    /// Forgets the line held for `subscription`; returns it.
    @discardableResult
    private func release(_ subscription: Int) -> UpdateNotification? {
        guard let held = pending.removeValue(forKey: subscription) else { return nil }
        Self.heldBytes.wrappingSubtract(held.bytes, ordering: .relaxed)
        return held.notification
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        // Replies the async writer held back go first, then the newest updates.
        context.fireChannelWritabilityChanged()
        drain(context)
    }

    /// Writes held lines, oldest subscription first, while the channel takes them.
    private func drain(_ context: ChannelHandlerContext) {
        guard context.channel.isWritable, !pending.isEmpty else { return }
        for subscription in pending.keys.sorted() {
            guard context.channel.isWritable, let notification = release(subscription) else {
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
