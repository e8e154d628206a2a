import Glibc
import NIOCore
import PetSpotLocation

/// The kernel's word on who is at the other end of a Unix socket
/// (SO_PEERCRED): uid, gid and pid at connect time. Clients cannot forge it.
public struct PeerCredentials: Sendable, Hashable {
    public var uid: UInt32
    public var gid: UInt32
    public var pid: Int32

    public init(uid: UInt32, gid: UInt32, pid: Int32) {
        self.uid = uid
        self.gid = gid
        self.pid = pid
    }

    /// The bare identity (no names resolved).
    public var identity: ClientIdentity { ClientIdentity(uid: uid, gid: gid, pid: pid) }

    /// Reads SO_PEERCRED from an accepted channel.
    /// - Throws: when the channel is not a socket that can tell.
    static func read(from channel: any Channel) -> EventLoopFuture<PeerCredentials> {
        guard let provider = channel as? any SocketOptionProvider else {
            return channel.eventLoop.makeFailedFuture(ChannelError.operationUnsupported)
        }
        let future: EventLoopFuture<KernelCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return future.map { PeerCredentials(uid: $0.uid, gid: $0.gid, pid: $0.pid) }
    }
}

/// The layout of Linux's `struct ucred` (pid, uid, gid), which Glibc only
/// declares under `_GNU_SOURCE` and so Swift cannot import.
struct KernelCredentials: Sendable {
    var pid: Int32
    var uid: UInt32
    var gid: UInt32
}
