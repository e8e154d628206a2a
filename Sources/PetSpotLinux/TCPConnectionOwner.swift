import CSockDiag
public import PetSpotPOSIX

import Glibc

/// The user who owns the other end of a TCP connection on this machine, as
/// the kernel knows it (`NETLINK_SOCK_DIAG`, what `ss -e` shows): for a
/// loopback TCP peer, what `SO_PEERCRED` is for a Unix socket peer.
///
/// The uid is the socket's owner, set by the kernel when the peer created
/// it; no process can choose it. A lookup that finds no live connection (the
/// peer already closed, or it is on another machine) gives `ENOENT`: such a
/// peer has no identity here.
public enum TCPConnectionOwner {
    /// One end of a TCP connection: an IPv4 (4 bytes) or IPv6 (16 bytes)
    /// address in network order, and a port.
    public struct Endpoint: Sendable, Hashable {
        public var address: [UInt8]
        public var port: UInt16

        public init(address: [UInt8], port: UInt16) {
            self.address = address
            self.port = port
        }

        /// `AF_INET` or `AF_INET6` by the address's length; `nil` for any other length.
        var family: Int32? {
            switch address.count {
            case 4: AF_INET
            case 16: AF_INET6
            default: nil
            }
        }

        /// The IPv4 address inside an IPv4-mapped IPv6 one (`::ffff:a.b.c.d`).
        var unmapped: Endpoint? {
            guard address.count == 16, address[0..<10].allSatisfy({ $0 == 0 }), address[10] == 0xFF,
                address[11] == 0xFF
            else { return nil }
            return Endpoint(address: Array(address[12...]), port: port)
        }
    }

    /// The uid that owns the socket at `peer`, connected to `local` (our end).
    ///
    /// An IPv4-mapped pair (a dual-stack listener) is looked up as IPv4 too.
    /// Never blocks: the kernel answers an exact lookup synchronously.
    public static func uid(ofPeer peer: Endpoint, connectedTo local: Endpoint) -> Result<UInt32, SystemCallError> {
        let first = lookup(peer, local)
        if case .failure(let error) = first, error.code == ENOENT, let peer4 = peer.unmapped,
            let local4 = local.unmapped
        {
            return lookup(peer4, local4)
        }
        return first
    }

    private static func lookup(_ peer: Endpoint, _ local: Endpoint) -> Result<UInt32, SystemCallError> {
        guard let family = peer.family, family == local.family else {
            return .failure(SystemCallError("sock_diag", code: EAFNOSUPPORT))
        }
        var uid: UInt32 = 0
        var inode: UInt64 = 0
        let status = peer.address.withUnsafeBufferPointer { source in
            local.address.withUnsafeBufferPointer { destination in
                petspot_tcp_socket_owner(
                    family, source.baseAddress, peer.port, destination.baseAddress, local.port, &uid, &inode)
            }
        }
        return status == 0 ? .success(uid) : .failure(SystemCallError("sock_diag", code: status))
    }
}
