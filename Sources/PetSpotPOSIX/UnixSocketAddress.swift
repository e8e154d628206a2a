import Glibc

/// An `AF_UNIX` socket address: a file system path or a Linux
/// abstract-namespace name, checked to fit `sun_path` (108 bytes).
public struct UnixSocketAddress: Sendable, Hashable {
    /// Size of `sun_path` on Linux.
    public static let sunPathSize = MemoryLayout.size(ofValue: sockaddr_un().sun_path)

    /// The bytes of `sun_path` that matter, as the kernel expects them.
    public let sunPath: [UInt8]

    /// A socket file: `nil` when `path` is empty, has a NUL byte, or does not
    /// fit with its terminating NUL.
    public init?(path: String) {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, !bytes.contains(0), bytes.count < Self.sunPathSize else { return nil }
        sunPath = bytes + [0]
    }

    /// A name in the abstract namespace (written `@name`): a leading NUL and
    /// the name, no terminating NUL; `nil` when it does not fit.
    public init?(abstract name: String) {
        let bytes = [0] + Array(name.utf8)
        guard bytes.count > 1, bytes.count <= Self.sunPathSize else { return nil }
        sunPath = bytes
    }

    /// Calls `body` with the address and the length to pass to `connect`,
    /// `bind` or `sendto` (exactly the family and the bytes of ``sunPath``).
    public func withSockaddr<Result>(
        _ body: (UnsafePointer<sockaddr>, socklen_t) throws -> Result
    ) rethrows -> Result {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: sunPath) }
        let length = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + sunPath.count
        return try withUnsafePointer(to: &address) {
            try $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { try body($0, socklen_t(length)) }
        }
    }

    /// A new blocking, close-on-exec stream socket connected to this address.
    public func connectStream() throws(SystemCallError) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw SystemCallError("socket") }
        let result = withSockaddr { connect(descriptor, $0, $1) }
        guard result == 0 else {
            let failure = SystemCallError("connect")
            close(descriptor)
            throw failure
        }
        return descriptor
    }
}
