import Hummingbird
import NIOCore

/// The request context of the kiosk's routes: Hummingbird's core storage plus
/// the visit the request belongs to and the form it posted.
public struct KioskRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The visitor's visit, as it was when the request arrived (set by ``VisitMiddleware``).
    public var visit: Visit?
    /// The posted form, read and checked by ``FormMiddleware`` (POST only).
    public var form: SubmittedForm?
    /// The upload was larger than ``KioskLimits/uploadBytes`` (its body was thrown away).
    public var uploadTooLarge = false
    /// The peer's address (only loopback peers see `/admin/status`).
    public var peerAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peerAddress = source.channel.remoteAddress
    }
}
