import Logging
import NIOCore
import PetSpotLocation

/// Closes a connection that has sent nothing for `idle_timeout` while it has
/// nothing in flight, no watch and no agent role (``ClientSession/isIdle``),
/// so idle connections cannot hold `max_clients` slots forever.
///
/// It follows a `NIOCore.IdleStateHandler` with a read timeout; a connection
/// that is busy when the timeout fires is left alone until the next one.
final class IdleConnectionCloser: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var session: ClientSession?
    private let logger: Logger

    init(logger: Logger) { self.logger = logger }

    /// The connection's session, once admitted; on the channel's loop.
    func attach(_ session: ClientSession) { self.session = session }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        guard let session, session.isIdle else { return }
        logger.info(
            "closing an idle connection (daemon.idle_timeout)",
            metadata: ["client": "uid=\(session.identity.uid) pid=\(session.identity.pid) conn=\(session.id)"])
        context.close(promise: nil)
    }
}
