import Glibc
import Foundation
import TestSupport
import Testing

/// Socket activation with systemd's own tool: `systemd-socket-activate -l
/// PATH petspot-locationd --config FILE` creates the listening socket and
/// passes it (LISTEN_FDS=1, LISTEN_PID) to the daemon.
@Suite("systemd socket activation: petspot-locationd process", .serialized)
struct SocketActivationTests {
    static let activator = ["/usr/bin/systemd-socket-activate", "/bin/systemd-socket-activate"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    @Test(
        "the daemon serves a request on the passed socket and leaves systemd's socket file alone",
        .enabled(if: activator != nil, "systemd-socket-activate is not installed (apt-get install systemd)"))
    func servesOnThePassedSocket() throws {
        let activator = try #require(Self.activator)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let passed = directory.file("passed.sock")
        let configured = directory.file("configured.sock")
        let config = try directory.write(
            "locationd.toml",
            """
            [daemon]
            socket = "\(configured)"
            state_dir = "\(directory.file("state"))"

            [source]
            kind = "static"

            [source.static]
            latitude = 52.2297
            longitude = 21.0122

            [policy]
            default = "authorized"
            prompt = "allow"
            """)
        let child = try ChildProcess(
            activator, ["-l", passed, RepositoryPaths.executable("petspot-locationd"), "--config", config])
        defer { child.terminate() }

        // systemd-socket-activate binds and listens before it waits for the
        // first connection (the file exists from the bind: wait for the listen).
        let deadline = Date().addingTimeInterval(60)
        while !RawSocket.isListening(passed) {
            try #require(Date() < deadline, "systemd-socket-activate did not listen on \(passed)")
            usleep(20_000)
        }
        // The first connection starts the daemon, which adopts the socket.
        let client = try RawSocket(path: passed)
        try client.send(#"{"jsonrpc":"2.0","id":1,"method":"location.get","params":{"timeout":10}}"# + "\n")
        let answer = try #require(try client.readJSON(timeout: 60) as? [String: Any])
        let fix = try #require(answer["result"] as? [String: Any], "answer: \(answer)")
        #expect(fix["latitude"] as? Double == 52.2297)
        #expect(fix["source"] as? String == "static")
        #expect(!FileManager.default.fileExists(atPath: configured), "the daemon must not bind its own socket")

        child.signal(SIGTERM)
        #expect(child.wait(timeout: 60) == 0)
        #expect(FileManager.default.fileExists(atPath: passed), "the socket file belongs to systemd")
    }
}
