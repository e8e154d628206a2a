import Glibc
import Foundation

/// A stand-in for systemd's notification socket: an `AF_UNIX` datagram
/// socket, bound to a path or an abstract name, whose messages a test reads
/// with a deadline. Set a child's `NOTIFY_SOCKET` to ``notifySocket``.
public final class NotifyListener: @unchecked Sendable {
    public enum Failure: Error, CustomStringConvertible {
        case setup(String, Int32)
        case timedOut(String, seen: [String])
        public var description: String {
            switch self {
            case .setup(let what, let code): "\(what): \(String(cString: strerror(code)))"
            case .timedOut(let what, let seen): "timed out waiting for \(what); received: \(seen)"
            }
        }
    }

    public let fd: Int32
    /// The value for `NOTIFY_SOCKET`: the path, or `@name`.
    public let notifySocket: String
    /// Every message received so far, in order.
    public private(set) var received: [String] = []

    /// Binds a socket file at `path`.
    public convenience init(path: String) throws { try self.init(address: path) }

    /// Binds `@name` in the abstract namespace.
    public convenience init(abstractName name: String) throws { try self.init(address: "@" + name) }

    /// The descriptor is stored only once bound (see ``RawSocket/init(path:)``:
    /// a throw after every property is set runs `deinit`, a second close).
    private init(address: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure.setup("socket", errno) }
        notifySocket = address
        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        let bytes: [UInt8] = address.hasPrefix("@") ? [0] + Array(address.utf8.dropFirst()) : Array(address.utf8)
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
        let length =
            MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path)! + bytes.count
            + (address.hasPrefix("@") ? 0 : 1)
        let result = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(length)) }
        }
        if result != 0 {
            let code = errno
            close(fd)
            throw Failure.setup("bind \(address)", code)
        }
        self.fd = fd
    }

    deinit { close(fd) }

    /// The next message within `timeout` seconds.
    public func next(timeout: Double) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw Failure.timedOut("a notification", seen: received) }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(remaining * 1000) + 1)
            if ready <= 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count >= 0 else { continue }
            let message = String(decoding: buffer[..<count], as: UTF8.self)
            received.append(message)
            return message
        }
    }

    /// Reads messages until one satisfies `matching`, within `timeout` seconds.
    public func wait(
        for what: String, timeout: Double, matching: (String) -> Bool
    ) throws -> String {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { throw Failure.timedOut(what, seen: received) }
            let message: String
            do {
                message = try next(timeout: remaining)
            } catch {
                throw Failure.timedOut(what, seen: received)
            }
            if matching(message) { return message }
        }
    }

    /// The `KEY=VALUE` lines of a message as a dictionary.
    public static func fields(_ message: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in message.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            fields[String(line[..<equals])] = String(line[line.index(after: equals)...])
        }
        return fields
    }
}
