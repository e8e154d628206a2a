import Glibc
import CEpoll
import PetSpotPOSIX

/// Where a load step connects: a Unix socket path or a loopback TCP port.
enum Endpoint: Sendable, CustomStringConvertible {
    case unix(String)
    case tcp(UInt16)

    var description: String {
        switch self {
        case .unix(let path): "unix:\(path)"
        case .tcp(let port): "tcp:127.0.0.1:\(port)"
        }
    }
}

/// Thin blocking-socket helpers over Glibc: the load generator and the floor
/// server use plain blocking calls on dedicated threads, so the measurement
/// itself adds no event loop.
enum Sockets {
    /// The monotonic clock in nanoseconds (`CLOCK_MONOTONIC`).
    static func monotonicNanos() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    /// The calling thread's CPU time (user + system) in nanoseconds.
    static func threadCPUNanos() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// The wall clock in nanoseconds since 1970 (`CLOCK_REALTIME`).
    static func realtimeNanos() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }

    /// Connects to `endpoint`; the descriptor, or `nil` (errno set).
    /// - Parameter receiveTimeout: seconds a read may block before it fails.
    static func connect(_ endpoint: Endpoint, receiveTimeout: Int = 5) -> Int32? {
        let fd: Int32
        switch endpoint {
        case .unix(let path):
            guard let address = UnixSocketAddress(path: path), let connected = try? address.connectStream() else {
                return nil
            }
            fd = connected
        case .tcp(let port):
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return nil }
            var address = inetAddress(port)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard result == 0 else {
                close(fd)
                return nil
            }
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        }
        var timeout = timeval(tv_sec: receiveTimeout, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        return fd
    }

    /// A listening socket on `endpoint` (a Unix path is replaced if present).
    static func listen(_ endpoint: Endpoint) -> Int32? {
        let fd: Int32
        switch endpoint {
        case .unix(let path):
            unlink(path)
            guard let address = UnixSocketAddress(path: path) else { return nil }
            fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return nil }
            guard address.withSockaddr({ bind(fd, $0, $1) }) == 0 else { return nil }
        case .tcp(let port):
            fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard fd >= 0 else { return nil }
            var one: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
            var address = inetAddress(port)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard result == 0 else { return nil }
        }
        guard Glibc.listen(fd, 1024) == 0 else { return nil }
        return fd
    }

    /// Writes all of `bytes`; `false` on error.
    /// An epoll descriptor watching each of `descriptors` for input, with
    /// its index as the event's data. The caller closes it.
    /// - Parameter step: names the step in an error.
    static func epoll(readingEach descriptors: [Int32], for step: String) throws -> Int32 {
        let epoll = epoll_create1(0)
        guard epoll >= 0 else { throw BenchError("\(step): epoll_create1 failed") }
        for (index, descriptor) in descriptors.enumerated() {
            var event = epoll_event()
            event.events = UInt32(EPOLLIN.rawValue)
            event.data.u64 = UInt64(index)
            guard epoll_ctl(epoll, Int32(EPOLL_CTL_ADD), descriptor, &event) == 0 else {
                close(epoll)
                throw BenchError("\(step): epoll_ctl failed: errno \(errno)")
            }
        }
        return epoll
    }

    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        (try? Descriptor.writeAll(fd, bytes)) != nil
    }

    /// Writes all of `text`; `false` on error.
    static func writeAll(_ fd: Int32, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { writeAll(fd, UnsafeRawBufferPointer($0)) }
    }

    /// Raises this process's soft `RLIMIT_NOFILE` to its hard limit; the new soft limit.
    @discardableResult
    static func raiseFileLimit() -> UInt64 {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return UInt64(limit.rlim_cur)
    }

    private static func inetAddress(_ port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }
}

/// How a load-generator thread waits for its answer.
enum ClientWait: String, CaseIterable, Sendable {
    /// `poll(2)` for `POLLIN`, then `read(2)`: how event-loop clients wait
    /// (libgps's `gps_waiting`, GLib's main loop under GeoClue, SwiftNIO
    /// under petspot-location's own client).
    case poll
    /// A blocking `read(2)`. On a Unix stream socket the server's read of
    /// the request frees the client's send buffer, and the kernel wakes
    /// every task asleep on the client's socket (`unix_write_space`): a
    /// client blocked in `read` is woken for nothing, and that wake-up is
    /// paid in the server's `read`. Over TCP (gpsd) no such wake-up happens.
    case read
}

/// Reads newline-terminated lines from a blocking socket into one reusable
/// buffer: no allocation per line. A line is valid until the next read.
final class LineReader {
    let fd: Int32
    /// How a read waits for bytes.
    var wait = ClientWait.read
    /// How long a poll waits, as long as a blocking read may (``Sockets/connect(_:receiveTimeout:)``).
    static let pollTimeoutMilliseconds: Int32 = 5000
    private let buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0

    /// - Parameter capacity: the longest line accepted.
    init(fd: Int32, capacity: Int = 1 << 18) {
        self.fd = fd
        self.buffer = .allocate(byteCount: capacity, alignment: 16)
    }

    deinit { buffer.deallocate() }

    /// The next line without its newline, or `nil` on end of file, error or timeout.
    func readLine() -> UnsafeRawBufferPointer? {
        let base = buffer.baseAddress!
        var scanned = start
        while true {
            if scanned < end, let found = memchr(base + scanned, 0x0A, end - scanned) {
                let newline = found - UnsafeMutableRawPointer(base)
                let line = UnsafeRawBufferPointer(start: base + start, count: newline - start)
                start = newline + 1
                if start == end {
                    start = 0
                    end = 0
                }
                return line
            }
            scanned = end
            if end == buffer.count {
                guard start > 0 else { return nil }  // line longer than the buffer
                memmove(base, base + start, end - start)
                end -= start
                scanned -= start
                start = 0
            }
            if wait == .poll {
                var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                let ready = Glibc.poll(&waiting, 1, Self.pollTimeoutMilliseconds)
                if ready < 0, errno == EINTR { continue }
                guard ready > 0 else { return nil }
            }
            let count = read(fd, base + end, buffer.count - end)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return nil }
            end += count
        }
    }

    /// Whether bytes are already buffered (a line may be complete without a read).
    var hasBuffered: Bool { end > start }
}

extension UnsafeRawBufferPointer {
    /// Whether `needle` occurs in these bytes.
    func contains(_ needle: StaticString) -> Bool {
        let length = needle.utf8CodeUnitCount
        guard count >= length, length > 0, let base = baseAddress else { return false }
        // memchr for the first byte, memcmp for the rest (memmem is not in the Glibc module).
        let first = Int32(needle.utf8Start[0])
        var offset = 0
        while offset <= count - length {
            guard let found = memchr(base + offset, first, count - length - offset + 1) else { return false }
            if memcmp(found, needle.utf8Start, length) == 0 { return true }
            offset = UnsafeRawPointer(found) - base + 1
        }
        return false
    }
}
