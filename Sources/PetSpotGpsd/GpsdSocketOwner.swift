import Glibc
import PetSpotPOSIX

/// Who is at the other end of a loopback connection to "gpsd".
///
/// Whatever listens on the configured port is not necessarily gpsd: any
/// local user can bind 2947 while gpsd is stopped and feed the daemon a
/// position of their choosing. For a connection over loopback the kernel
/// knows the owner of the far socket: `/proc/net/tcp` (or `tcp6`) lists it,
/// with the uid of the socket's creator, under the connection's two
/// addresses swapped. The socket of an accepted connection carries its
/// listener's owner, so this names who opened the listening socket, checked
/// on the very connection in use (no window between a check and a connect).
///
/// Trusted: root, or the configured user (`source.gpsd.owner`, default
/// `gpsd`). Anything else, or a connection that cannot be found in the
/// table, is refused. Over a non-loopback address there is nothing to check
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
        let table = peer.isIPv6 ? "/proc/net/tcp6" : "/proc/net/tcp"
        guard let text = BoundedFile.text(table, limit: 4 << 20) else {
            return .refused("cannot read \(table) to check who owns gpsd's port")
        }
        guard let uid = ownerUid(in: text, local: peer.procForm, remote: local.procForm) else {
            return .refused("gpsd's socket \(peer.display) is not in \(table); cannot check who owns it")
        }
        let allowed = UserDatabase.uid(ofUser: owner)
        if uid == 0 || uid == allowed { return .trusted(uid: uid) }
        return .refused(
            "the socket at \(peer.display) belongs to uid \(uid)\(UserDatabase.userName(uid: uid).map { " (\($0))" } ?? ""), "
                + "not root or \(owner)\(allowed == nil ? " (no such user here)" : ""): not trusted as gpsd")
    }

    /// The uid column of the row whose local and remote addresses are
    /// `local` and `remote` (in the table's `HEX:PORT` form).
    static func ownerUid(in table: String, local: String, remote: String) -> UInt32? {
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count > 7, fields[1] == local, fields[2] == remote else { continue }
            return UInt32(fields[7])
        }
        return nil
    }

    /// One side of a TCP connection.
    struct Endpoint {
        /// The address as `/proc/net/tcp*` prints it: the address's 32-bit
        /// words in host order, `%08X` each, then `:%04X` of the port.
        var procForm: String
        var display: String
        var isLoopback: Bool
        var isIPv6: Bool
    }

    private static func endpoint(
        _ descriptor: Int32,
        _ query: (Int32, UnsafeMutablePointer<sockaddr>?, UnsafeMutablePointer<socklen_t>?) -> Int32
    ) -> Endpoint? {
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
            let raw = address.sin_addr.s_addr
            let octets = withUnsafeBytes(of: raw) { Array($0) }
            return Endpoint(
                procForm: hex(raw, 8) + ":" + hex(UInt32(port), 4),
                display: octets.map(String.init).joined(separator: ".") + ":\(port)",
                isLoopback: octets[0] == 127, isIPv6: false)
        case AF_INET6:
            let address = withUnsafeBytes(of: &storage) { $0.load(as: sockaddr_in6.self) }
            let port = UInt16(bigEndian: address.sin6_port)
            let bytes = withUnsafeBytes(of: address.sin6_addr) { Array($0) }
            let words = (0..<4).map { index in
                bytes[index * 4..<index * 4 + 4].withUnsafeBytes { $0.loadUnaligned(as: UInt32.self) }
            }
            let isMappedLoopback =
                bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
                && bytes[12] == 127
            let isLoopback = bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
            return Endpoint(
                procForm: words.map { hex($0, 8) }.joined() + ":" + hex(UInt32(port), 4),
                display:
                    "[\(isLoopback ? "::1" : isMappedLoopback ? "::ffff:\(bytes[12...].map(String.init).joined(separator: "."))" : "ipv6")]:\(port)",
                isLoopback: isLoopback || isMappedLoopback, isIPv6: true)
        default:
            return nil
        }
    }

    private static func hex(_ value: UInt32, _ width: Int) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
