import Glibc
import PetSpotLinux
import PetSpotPOSIX

/// Who is at the other end of a loopback connection to "gpsd".
///
/// Whatever listens on the configured port is not necessarily gpsd: any
/// local user can bind 2947 while gpsd is stopped and feed the daemon a
/// position of their choosing. For a connection over loopback the kernel
/// knows the owner of the far socket (``TCPConnectionOwner``, the same
/// lookup the kiosk makes for its browser). The socket of an accepted
/// connection carries its listener's owner, so this names who opened the
/// listening socket, checked on the very connection in use (no window
/// between a check and a connect).
///
/// Trusted: root, or the configured user (`source.gpsd.owner`, default
/// `gpsd`). Anything else, or a connection the kernel cannot find, is
/// refused. Over a non-loopback address there is nothing to check
/// ( ``Verdict/notLoopback``).
enum GpsdSocketOwner {
    /// The outcome of a check.
    enum Verdict: Equatable, Sendable {
        /// The far end is another host; nothing can be checked.
        case notLoopback
        /// The far socket belongs to a trusted uid.
        case trusted(uid: UInt32)
        /// Refused, and why (for the log and `daemon.status`).
        case refused(String)
    }

    /// Checks the connection `descriptor` against root and `owner`.
    static func check(descriptor: Int32, owner: String) -> Verdict {
        guard let local = endpoint(descriptor, getsockname), let peer = endpoint(descriptor, getpeername) else {
            return .refused("cannot read the gpsd connection's addresses: \(String(cString: strerror(errno)))")
        }
        guard peer.isLoopback else { return .notLoopback }
        let uid: UInt32
        switch TCPConnectionOwner.uid(ofPeer: peer.endpoint, connectedTo: local.endpoint) {
        case .success(let found): uid = found
        case .failure(let error):
            return .refused("cannot find who owns gpsd's socket \(peer.display) (\(error)); not trusted as gpsd")
        }
        let allowed = UserDatabase.uid(ofUser: owner)
        if uid == 0 || uid == allowed { return .trusted(uid: uid) }
        return .refused(
            "the socket at \(peer.display) belongs to uid \(uid)\(UserDatabase.userName(uid: uid).map { " (\($0))" } ?? ""), "
                + "not root or \(owner)\(allowed == nil ? " (no such user here)" : ""): not trusted as gpsd")
    }

    /// One side of a TCP connection.
    struct Side {
        var endpoint: TCPConnectionOwner.Endpoint
        var display: String
        var isLoopback: Bool
    }

    private static func endpoint(
        _ descriptor: Int32,
        _ query: (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?) -> Int32
    ) -> Side? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let status = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { query(descriptor, $0, &length) }
        }
        guard status == 0 else { return nil }
        switch Int32(storage.ss_family) {
        case AF_INET:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in.self) }
            let port = UInt16(bigEndian: address.sin_port)
            let octets = withUnsafeBytes(of: address.sin_addr.s_addr) { Array($0) }
            return Side(
                endpoint: TCPConnectionOwner.Endpoint(address: octets, port: port),
                display: octets.map(String.init).joined(separator: ".") + ":\(port)", isLoopback: octets[0] == 127)
        case AF_INET6:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            let port = UInt16(bigEndian: address.sin6_port)
            let bytes = withUnsafeBytes(of: address.sin6_addr) { Array($0) }
            let isMappedLoopback =
                bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
                && bytes[12] == 127
            let isLoopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
            let shown =
                isLoopback
                ? "::1" : isMappedLoopback ? "::ffff:\(bytes[12...].map(String.init).joined(separator: "."))" : "ipv6"
            return Side(
                endpoint: TCPConnectionOwner.Endpoint(address: bytes, port: port), display: "[\(shown)]:\(port)",
                isLoopback: isLoopback || isMappedLoopback)
        default:
            return nil
        }
    }
}
