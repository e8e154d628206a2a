import Glibc
import NIOCore
import NIOPosix

/// A connect that waits for room in the daemon's listen backlog.
///
/// A Unix socket whose backlog is full refuses a non-blocking connect with
/// `EAGAIN` at once, which is what NIO's connect is. The daemon is there,
/// behind other clients' connections (a storm of them: issue 41), and takes
/// the next in moments; trying again from user space loses the race to
/// whoever connects in a loop. A blocking connect instead waits in the
/// kernel's queue of the listener, woken as the daemon accepts. So after an
/// `EAGAIN` the client connects once more, blocking, on NIO's thread pool,
/// bounded by `SO_SNDTIMEO` (the kernel's limit for that wait), and hands the
/// connected socket to NIO.
enum QueuedConnect {
    /// Why the queued connect failed.
    struct Failure: Error, CustomStringConvertible {
        var errnoCode: Int32
        var description: String { String(cString: strerror(errnoCode)) }
    }

    /// A connected, blocking-mode socket to `path` (NIO makes it non-blocking
    /// when it takes it), within `limit`.
    static func connect(_ path: String, within limit: Duration) async throws -> CInt {
        try await NIOThreadPool.singleton.runIfActive { try connectBlocking(path, within: limit) }
    }

    private static func connectBlocking(_ path: String, within limit: Duration) throws -> CInt {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, !bytes.contains(0), bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            throw Failure(errnoCode: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes + [0]) }
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure(errnoCode: errno) }
        let (seconds, attoseconds) = max(limit, .milliseconds(1)).components
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int(attoseconds / 1_000_000_000_000))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size)) == 0
                    && Glibc.connect(fd, address, socklen_t(MemoryLayout<sockaddr_un>.size)) == 0
            }
        }
        guard connected else {
            let code = errno
            close(fd)
            throw Failure(errnoCode: code)
        }
        // The send timeout was for the connect only.
        var none = timeval(tv_sec: 0, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &none, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }
}
