import NIOCore
import PetSpotProtocol

/// Where one connection's `location.update` lines go when the daemon fans
/// fixes out from the connection's own event loop (``WatchFanOut``): called
/// only on that loop, so it needs no lock and no task per update.
public protocol UpdateOutlet: AnyObject {
    /// Writes the update's line, or, while the client is not reading, keeps
    /// it as that subscription's newest undelivered update.
    func write(_ update: RenderedUpdate)
    /// Drops what `subscription` still has undelivered (it ended).
    func discard(subscription: Int)
}

/// A `location.update` line as a fan-out pass rendered it.
///
/// Watchers' lines differ only in the presentation (full or snapped) and
/// the subscription number, which each connection counts from 1: most
/// watchers of a pass share one line, so one buffer goes to all of them.
/// A class: handing it to a thousand outlets costs one reference count each.
public final class RenderedUpdate {
    /// The notification, its age fixed for the pass (``UpdateNotification/stamped(at:)``).
    public let notification: UpdateNotification
    public let subscription: Int
    /// The whole line, newline included.
    public let line: ByteBuffer

    /// Renders `notification` for `subscription`.
    public init(_ notification: UpdateNotification, subscription: Int, allocator: ByteBufferAllocator = .init()) {
        var line = allocator.buffer(capacity: notification.maximumLineLength)
        notification.write(subscription: subscription) { line.writeBytes($0) }
        self.notification = notification
        self.subscription = subscription
        self.line = line
    }
}

/// A connection's ``UpdateOutlet`` with the event loop it must be used on;
/// sendable, so a session can carry it.
public struct LoopBoundOutlet: Sendable {
    public let eventLoop: any EventLoop
    let outlet: NIOLoopBound<any UpdateOutlet>

    /// Binds `outlet` to `eventLoop`; call on that loop.
    public init(_ outlet: any UpdateOutlet, eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
        self.outlet = NIOLoopBound(outlet, eventLoop: eventLoop)
    }

    /// The outlet; only on ``eventLoop``.
    var value: any UpdateOutlet { outlet.value }
}
