import Glibc
import Foundation
import PetSpotJSON
import PetSpotLocation
import PetSpotLocationClient
import Testing
import TestSupport

/// A daemon whose listen backlog is full (a storm of other clients'
/// connections, issue 41) refuses a non-blocking connect with `EAGAIN` at
/// once. The client then waits in the listener's queue (`QueuedConnect`)
/// and is answered once the daemon accepts, instead of calling the daemon
/// unreachable.
@Suite("LocationClient against a full listen backlog", .timeLimit(.minutes(2)))
struct FullBacklogTests {
    @Test func aClientWaitsForRoomInTheBacklog() async throws {
        let directory = try TemporaryDirectory(prefix: "psb")
        defer { directory.remove() }
        let path = directory.file("full.sock")
        let listener = try Self.listen(path)
        var listenerHandedOver = false
        defer { if !listenerHandedOver { close(listener) } }
        // Fill the backlog with connections nobody accepts.
        var fillers: [Int32] = []
        defer { for fd in fillers { close(fd) } }
        while true {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
            if Self.connect(fd, path) == 0 {
                fillers.append(fd)
                continue
            }
            let code = errno
            close(fd)
            try #require(code == EAGAIN, "connect failed with \(String(cString: strerror(code)))")
            break
        }

        // Limits well past the waits below (up to 30 s to see the client
        // wait, on a loaded machine): with the default 10 s to send, a slow
        // look at /proc ended the call before the listener was handed over.
        let client = LocationClient(socketPath: path, answerLimit: .seconds(90), sendLimit: .seconds(90))
        let call = Task { () -> Result<JSONValue, LocationError> in
            do throws(LocationError) { return .success(try await client.daemonStatus()) } catch {
                return .failure(error)
            }
        }
        // The client's connect sleeps in the kernel, waiting for the listener.
        let waiting = await eventually(within: .seconds(30)) { Self.aThreadWaitsForAListener() }
        #expect(waiting, "no thread of this process waits in unix_wait_for_peer")

        // The daemon accepts again: the fillers (which send nothing), then
        // the client, on a thread of its own (its waits must not hold one of
        // the cooperative pool's threads, which the client needs).
        for fd in fillers { close(fd) }
        fillers.removeAll()
        listenerHandedOver = true
        Thread { Self.acceptAndAnswer(listener) }.start()
        let result = await call.value
        await client.close()
        guard case .success(let status) = result else {
            Issue.record("the client failed: \(result)")
            return
        }
        #expect(status["version"] == JSONValue.string("full-backlog"))
    }

    /// Accepts until one connection sends a request, answers it and closes
    /// (every wait bounded: 30 s for a connection, 10 s for its line); then
    /// closes the listener.
    static func acceptAndAnswer(_ listener: Int32) {
        defer { close(listener) }
        var descriptor = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        while poll(&descriptor, 1, 30_000) > 0 {
            let peer = accept(listener, nil, nil)
            guard peer >= 0 else { continue }
            defer { close(peer) }
            guard let line = readLine(peer), let request = try? JSONValue.parse(bytes: Array(line.utf8)),
                case .number(let id)? = request["id"]
            else { continue }
            let answer = #"{"jsonrpc":"2.0","id":\#(Int(id)),"result":{"version":"full-backlog"}}"# + "\n"
            _ = answer.withCString { send(peer, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            return
        }
    }

    static func listen(_ path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = Self.address(path)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0 && Glibc.listen(fd, 0) == 0)
        return fd
    }

    static func connect(_ fd: Int32, _ path: String) -> Int32 {
        var address = Self.address(path)
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
    }

    static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8) + [0]) }
        return address
    }

    /// One line from `fd` (at most 10 s; `nil` on end of stream).
    static func readLine(_ fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while !bytes.contains(10) {
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 10_000) > 0 else { return nil }
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return nil }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes[..<bytes.firstIndex(of: 10)!], as: UTF8.self)
    }

    /// Whether a thread of this process sleeps in the kernel's wait for a
    /// listener's backlog (`/proc/self/task/*/wchan`).
    static func aThreadWaitsForAListener() -> Bool {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.contains { task in
            (try? String(contentsOfFile: "/proc/self/task/\(task)/wchan", encoding: .utf8)) == "unix_wait_for_peer"
        }
    }
}
