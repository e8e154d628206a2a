import NIOCore
import PetSpotProtocol

/// Where one connection's `location.update` lines go when the daemon fans
/// fixes out from the connection's own event loop (``WatchFanOut``): called
/// only on that loop, so it needs no lock and no task per update.
public protocol UpdateOutlet: AnyObject {
    /// Writes the line for `subscription`, or, while the client is not
    /// reading, keeps it as that subscription's newest undelivered line.
    func write(_ notification: UpdateNotification, subscription: Int)
    /// Drops what `subscription` still has undelivered (it ended).
    func discard(subscription: Int)
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
