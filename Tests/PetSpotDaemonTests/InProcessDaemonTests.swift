import DaemonTestSupport
import Foundation
import Glibc
import PetSpotDaemon
import PetSpotLocation
import PetSpotPolicy
import PetSpotSettings
import TestSupport
import Testing

/// The daemon's services run in this process (no binary), spoken to in raw
/// JSON-RPC lines over its real socket.
@Suite("The daemon in-process, over its socket", .timeLimit(.minutes(5)))
struct InProcessDaemonTests {
    static let latitude = -33.8688
    static let longitude = 151.2093

    static let configuration = InProcessDaemon.configuration(
        at: StaticSourceSettings(coordinate: Coordinate(latitude: latitude, longitude: longitude)),
        policy: Policy(defaultStatus: .authorized))

    /// Sends one request line and reads its answer, off the concurrency pool.
    static func call(_ socket: RawSocket, _ line: String) async throws -> [String: Any] {
        let answer = try await onOwnThread {
            try socket.send(line + "\n")
            return try socket.readLine()
        }
        return try #require(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any], "\(answer)")
    }

    @Test("daemon.status and location.get answered over the socket, then a graceful stop removes the socket")
    func statusGetAndGracefulStop() async throws {
        let directory = try TemporaryDirectory(prefix: "psd")
        defer { directory.remove() }
        let daemon = try await InProcessDaemon.start(Self.configuration, in: directory)
        do {
            // Only its user may connect (socket_mode 0600).
            var info = stat()
            #expect(lstat(daemon.socketPath, &info) == 0)
            #expect(info.st_mode & S_IFMT == S_IFSOCK)
            #expect(info.st_mode & 0o777 == 0o600)

            let socket = try RawSocket(path: daemon.socketPath)
            let status = try await Self.call(socket, #"{"jsonrpc":"2.0","id":1,"method":"daemon.status"}"#)
            #expect(status["id"] as? Int == 1)
            let result = try #require(status["result"] as? [String: Any], "\(status)")
            #expect(result["version"] as? String == DaemonVersion.current)
            #expect((result["source"] as? [String: Any])?["kind"] as? String == "static")
            #expect(result["clients"] as? Int == 1)

            let get = try await Self.call(
                socket, #"{"jsonrpc":"2.0","id":"g","method":"location.get","params":{"timeout":2}}"#)
            #expect(get["id"] as? String == "g")
            let fix = try #require(get["result"] as? [String: Any], "\(get)")
            #expect(fix["latitude"] as? Double == Self.latitude)
            #expect(fix["longitude"] as? Double == Self.longitude)
            #expect(fix["source"] as? String == "static")

            // SIGTERM's path: the connected client is let go, the socket file removed.
            try await daemon.stop()
            #expect(try await onOwnThread { socket.waitForClose(timeout: 30) })
            #expect(access(daemon.socketPath, F_OK) != 0 && errno == ENOENT)
            #expect(throws: RawSocket.Failure.self) { try RawSocket(path: daemon.socketPath) }
        } catch {
            try? await daemon.stop()
            throw error
        }
    }

    @Test("a group-writable state directory: the daemon refuses to start, naming it")
    func untrustedStateDirectory() async throws {
        let directory = try TemporaryDirectory(prefix: "psd")
        defer { directory.remove() }
        let state = directory.file("state")
        #expect(mkdir(state, 0o700) == 0)
        #expect(chmod(state, 0o770) == 0)
        let error = await #expect(throws: TrustedDirectory.Refusal.self) {
            try await InProcessDaemon.start(Self.configuration, in: directory).stop()
        }
        #expect(error?.description.contains(state) == true, "\(String(describing: error))")
        // Nothing was bound.
        #expect(access(directory.file("locationd.sock"), F_OK) != 0)
    }
}
