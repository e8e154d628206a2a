import Glibc
import Foundation

/// A blocking Unix-socket client for tests that must send exactly the bytes
/// they mean (garbage, half lines, oversized lines) and read raw lines back.
/// Every read is bounded by a deadline, so a test can never hang; the default
/// deadlines only stop a hang (generous for a loaded machine: a passing test
/// never waits for them).
public final class RawSocket: @unchecked Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case connect(String, Int32)
        case timedOut(String)
        case closed
        public var description: String {
            switch self {
            case .connect(let path, let code): "cannot connect to \(path): \(String(cString: strerror(code)))"
            case .timedOut(let what): "timed out waiting for \(what)"
            case .closed: "the peer closed the connection"
            }
        }
    }

    public let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `path`.
    ///
    /// The descriptor is stored only once connected: a class whose
    /// initializer throws after every property is set runs `deinit`, which
    /// would close the number a second time (by then perhaps another
    /// test's socket: one process runs the tests in parallel).
    public init(path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        if result != 0 {
            let code = errno
            Glibc.close(fd)
            throw Failure.connect(path, code)
        }
        self.fd = fd
    }

    deinit { Glibc.close(fd) }

    /// Whether a Unix socket bound to `path` listens: its line in
    /// `/proc/net/unix` carries `__SO_ACCEPTCON` (flags `00010000`). A
    /// socket file exists from `bind`, before `listen`; a connect in between
    /// is refused.
    public static func isListening(_ path: String) -> Bool {
        guard let table = try? String(contentsOfFile: "/proc/net/unix", encoding: .utf8) else { return false }
        return table.split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count >= 8 && fields[7] == path && fields[3] == "00010000"
        }
    }

    /// Sends `text` as is.
    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    /// Sends bytes as they are.
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw Failure.closed
            }
            offset += written
        }
    }

    /// Sends as much of `bytes` as the peer takes, never blocking for more
    /// than `stall` seconds without progress: a client that floods a server
    /// which stopped reading it. Returns how many bytes went out. (No signal
    /// says the peer stopped reading: the stall is long enough that a loaded
    /// machine's pauses are not taken for it.)
    public func sendUntilStalled(_ bytes: [UInt8], stall: Double = 3) -> Int {
        var offset = 0
        while offset < bytes.count {
            var descriptor = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
            guard poll(&descriptor, 1, Int32(stall * 1000)) > 0 else { break }
            let written = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
            }
            if written < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                break
            }
            offset += written
        }
        return offset
    }

    /// Bytes received and not yet read (`FIONREAD`).
    public var unreadBytes: Int {
        var count: Int32 = 0
        return ioctl(fd, UInt(FIONREAD), &count) == 0 ? Int(count) : 0
    }

    /// Waits (at most `timeout` seconds) until no more bytes arrive for
    /// `quiet` seconds: the peer wrote what it could into a socket this
    /// side does not read. (No signal says so: `quiet` is long enough that a
    /// loaded machine's pauses are not taken for it.)
    public func waitUntilIncomingSettles(quiet: Double = 1, timeout: Double = 60) {
        let deadline = Date().addingTimeInterval(timeout)
        var last = -1
        while Date() < deadline {
            let now = unreadBytes
            if now == last { return }
            last = now
            usleep(UInt32(quiet * 1_000_000))
        }
    }

    /// Closes the sending side (the daemon sees end of input).
    public func shutdownWrite() { Glibc.shutdown(fd, Int32(SHUT_WR)) }

    /// Reads one line (without its newline) within `timeout` seconds.
    public func readLine(timeout: Double = 60) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard try fill(until: deadline) else { throw Failure.closed }
        }
    }

    /// Reads one line and parses it as a JSON object or array.
    public func readJSON(timeout: Double = 60) throws -> Any {
        let line = try readLine(timeout: timeout)
        return try JSONSerialization.jsonObject(with: Data(line.utf8), options: [.fragmentsAllowed])
    }

    /// Whether the peer closes the connection within `timeout` (any pending
    /// lines are discarded).
    public func waitForClose(timeout: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            do {
                if try !fill(until: deadline) { return true }
                buffer.removeAll()
            } catch {
                return false
            }
        }
    }

    /// Whether nothing arrives for `seconds` (used only to show silence,
    /// e.g. that a notification gets no answer).
    public func staysSilent(for seconds: Double) -> Bool {
        if !buffer.isEmpty { return false }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, Int32(seconds * 1000)) == 0
    }

    /// Reads more bytes; `false` on end of stream.
    private func fill(until deadline: Date) throws -> Bool {
        let remaining = deadline.timeIntervalSinceNow
        guard remaining > 0 else { throw Failure.timedOut("a line") }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(remaining * 1000))
        if ready == 0 { throw Failure.timedOut("a line") }
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if count < 0 {
            if errno == EINTR || errno == EAGAIN { return true }
            if errno == ECONNRESET { return false }
            throw Failure.closed
        }
        if count == 0 { return false }
        buffer.append(contentsOf: chunk[..<count])
        return true
    }
}
