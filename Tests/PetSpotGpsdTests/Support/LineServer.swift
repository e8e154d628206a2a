import Foundation
import Glibc

/// A tiny TCP server on 127.0.0.1 (kernel-chosen port) for tests: the fake
/// gpsd and the NMEA feed that real gpsd reads. Each connection runs
/// `handler` on its own thread; ``stop()`` closes everything and waits for
/// those threads to end.
final class LineServer: Sendable {
    /// One accepted connection.
    struct Connection: Sendable {
        let fd: Int32
        let server: LineServer

        /// Sends `text` as is; false once the peer or the server is gone.
        @discardableResult
        func send(_ text: String) -> Bool { send(bytes: Array(text.utf8)) }

        /// Sends `bytes` as is (in one `send` call when the socket takes them);
        /// false once the peer or the server is gone.
        @discardableResult
        func send(bytes: [UInt8]) -> Bool {
            guard !server.isStopped else { return false }
            var sent = 0
            while sent < bytes.count {
                let result = bytes.withUnsafeBytes {
                    Glibc.send(fd, $0.baseAddress! + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
                }
                if result <= 0 { return false }
                sent += result
            }
            return true
        }

        /// Sends `line` plus `\r\n`, as gpsd does.
        @discardableResult
        func sendLine(_ line: String) -> Bool { send(line + "\r\n") }

        /// Waits up to `duration` (forever when nil), discarding what the peer sends.
        /// - Returns: false when the peer closed or the server stopped.
        func idle(for duration: Duration?) -> Bool {
            let deadline = duration.map { ContinuousClock.now + $0 }
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !server.isStopped {
                if let deadline, ContinuousClock.now >= deadline { return true }
                var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                if poll(&descriptor, 1, 20) > 0 {
                    if recv(fd, &buffer, buffer.count, 0) <= 0 { return false }
                }
            }
            return false
        }
    }

    private struct State {
        var stopped = false
        /// Whether `listener` is still open: a descriptor number is only
        /// ever touched while it is ours (once closed, the number may
        /// already be another test's socket).
        var listening = true
        var connections: Set<Int32> = []
        var threads = 0
        var accepted = 0
    }

    /// The listening port.
    let port: Int
    private let listener: Int32
    private let state = LockedBox(State())

    /// Starts listening.
    init(handler: @escaping @Sendable (Connection) -> Void) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw POSIXError(.EADDRINUSE)
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        state.withLock { $0.threads += 1 }
        let thread = Thread { [self] in acceptLoop(handler) }
        thread.start()
    }

    var isStopped: Bool { state.withLock { $0.stopped } }

    /// How many connections were accepted so far.
    var acceptedCount: Int { state.withLock { $0.accepted } }

    /// Closes the listener and every connection, then waits (bounded) for
    /// the threads. Calling it again does nothing more.
    func stop() {
        state.withLock { state in
            state.stopped = true
            for fd in state.connections { shutdown(fd, Int32(SHUT_RDWR)) }
            // Under the lock the accept loop closes it with: never a stale number.
            if state.listening { shutdown(listener, Int32(SHUT_RDWR)) }
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while state.withLock({ $0.threads }) > 0, ContinuousClock.now < deadline {
            usleep(5_000)  // no signal for "a thread has returned"; bounded poll
        }
    }

    private func acceptLoop(_ handler: @escaping @Sendable (Connection) -> Void) {
        defer {
            state.withLock { state in
                state.listening = false
                close(listener)
                state.threads -= 1
            }
        }
        while !isStopped {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let admitted = state.withLock { state -> Bool in
                guard !state.stopped else { return false }
                state.connections.insert(client)
                state.threads += 1
                state.accepted += 1
                return true
            }
            guard admitted else {
                close(client)
                return
            }
            let connection = Connection(fd: client, server: self)
            let thread = Thread { [self] in
                handler(connection)
                state.withLock { state in
                    state.connections.remove(client)
                    close(client)
                    state.threads -= 1
                }
            }
            thread.start()
        }
    }
}
