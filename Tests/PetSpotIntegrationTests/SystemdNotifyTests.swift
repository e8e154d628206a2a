import Glibc
import Foundation
import TestSupport
import Testing

/// The sd_notify protocol as systemd sees it, against the real
/// `petspot-locationd` process: a test socket stands in for systemd's.
@Suite("systemd notify: petspot-locationd process", .serialized)
struct SystemdNotifyTests {
    static let daemon = RepositoryPaths.executable("petspot-locationd")

    @Test("READY=1, WATCHDOG=1 pings, RELOADING=1 then READY=1 on SIGHUP, STOPPING=1 and exit 0 on SIGTERM")
    func lifecycleOnAPathSocket() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let listener = try NotifyListener(path: directory.file("notify"))
        let socket = directory.file("d.sock")
        let child = try ChildProcess(
            Self.daemon, ["--demo", "--socket", socket, "--log-level", "notice"],
            environment: ["NOTIFY_SOCKET": listener.notifySocket, "WATCHDOG_USEC": "400000"])
        defer { child.terminate() }

        let ready = try listener.wait(for: "READY=1", timeout: 60) { NotifyListener.fields($0)["READY"] == "1" }
        #expect(NotifyListener.fields(ready)["STATUS"] == "serving")
        // READY=1 means serving: the socket accepts a connection now.
        _ = try RawSocket(path: socket)

        // Pings every 200 ms (half of 400 ms): two, the bound only stops a hang.
        for _ in 0..<2 {
            _ = try listener.wait(for: "WATCHDOG=1", timeout: 60) { $0 == "WATCHDOG=1" }
        }

        // Read before the signal: the stamp is taken after it, however late this thread runs again.
        let before = Self.monotonicMicroseconds()
        child.signal(SIGHUP)
        let reloading = try listener.wait(for: "RELOADING=1", timeout: 60) {
            NotifyListener.fields($0)["RELOADING"] == "1"
        }
        let stamp = try #require(NotifyListener.fields(reloading)["MONOTONIC_USEC"].flatMap { UInt64($0) })
        #expect(stamp + 1_000_000 >= before && stamp <= Self.monotonicMicroseconds())
        _ = try listener.wait(for: "READY=1 after the reload", timeout: 60) {
            NotifyListener.fields($0)["READY"] == "1"
        }

        child.signal(SIGTERM)
        _ = try listener.wait(for: "STOPPING=1", timeout: 60) { NotifyListener.fields($0)["STOPPING"] == "1" }
        #expect(child.wait(timeout: 60) == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "a socket the daemon bound is removed")
    }

    @Test("the abstract namespace (@name) works, and no WATCHDOG_USEC means no pings")
    func abstractNamespace() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let listener = try NotifyListener(abstractName: "petspot-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        let child = try ChildProcess(
            Self.daemon, ["--demo", "--socket", directory.file("d.sock"), "--log-level", "notice"],
            environment: ["NOTIFY_SOCKET": listener.notifySocket])
        defer { child.terminate() }

        _ = try listener.wait(for: "READY=1", timeout: 60) { NotifyListener.fields($0)["READY"] == "1" }
        child.signal(SIGTERM)
        _ = try listener.wait(for: "STOPPING=1", timeout: 60) { NotifyListener.fields($0)["STOPPING"] == "1" }
        #expect(child.wait(timeout: 60) == 0)
        #expect(!listener.received.contains("WATCHDOG=1"))
    }

    @Test("a WATCHDOG_PID naming another process means no pings")
    func watchdogForAnotherProcess() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let listener = try NotifyListener(path: directory.file("notify"))
        let child = try ChildProcess(
            Self.daemon, ["--demo", "--socket", directory.file("d.sock"), "--log-level", "notice"],
            environment: [
                "NOTIFY_SOCKET": listener.notifySocket, "WATCHDOG_USEC": "200000", "WATCHDOG_PID": "\(getpid())",
            ])
        defer { child.terminate() }

        _ = try listener.wait(for: "READY=1", timeout: 60) { NotifyListener.fields($0)["READY"] == "1" }
        // A ping would come within 100 ms; allow ten times that.
        #expect(throws: NotifyListener.Failure.self) {
            try listener.wait(for: "WATCHDOG=1", timeout: 1) { $0 == "WATCHDOG=1" }
        }
        child.signal(SIGTERM)
        #expect(child.wait(timeout: 60) == 0)
    }

    @Test("a reload with an invalid file reports it, keeps serving, and a fixed file reloads")
    func failedReloadKeepsServing() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let listener = try NotifyListener(path: directory.file("notify"))
        let socket = directory.file("d.sock")
        let valid = """
            [daemon]
            socket = "\(socket)"
            state_dir = "\(directory.file("state"))"

            [source]
            kind = "static"

            [source.static]
            latitude = 52.2297
            longitude = 21.0122

            [policy]
            default = "authorized"
            """
        let config = try directory.write("locationd.toml", valid)
        let child = try ChildProcess(
            Self.daemon, ["--config", config, "--log-level", "notice"],
            environment: ["NOTIFY_SOCKET": listener.notifySocket])
        defer { child.terminate() }
        _ = try listener.wait(for: "READY=1", timeout: 60) { NotifyListener.fields($0)["READY"] == "1" }

        try directory.write("locationd.toml", valid + "\nunknown_key = 1\n")
        child.signal(SIGHUP)
        _ = try listener.wait(for: "RELOADING=1", timeout: 60) { NotifyListener.fields($0)["RELOADING"] == "1" }
        let failed = try listener.wait(for: "READY=1", timeout: 60) { NotifyListener.fields($0)["READY"] == "1" }
        #expect(NotifyListener.fields(failed)["STATUS"]?.contains("reload failed") == true)
        let client = try RawSocket(path: socket)
        try client.send(#"{"jsonrpc":"2.0","id":1,"method":"location.get"}"# + "\n")
        let answer = try #require(try client.readJSON(timeout: 60) as? [String: Any])
        #expect((answer["result"] as? [String: Any])?["latitude"] as? Double == 52.2297)

        try directory.write("locationd.toml", valid)
        child.signal(SIGHUP)
        let reloaded = try listener.wait(for: "READY=1 after a good reload", timeout: 60) {
            NotifyListener.fields($0)["READY"] == "1"
        }
        #expect(NotifyListener.fields(reloaded)["STATUS"]?.contains("configuration reloaded") == true)

        child.signal(SIGTERM)
        _ = try listener.wait(for: "STOPPING=1", timeout: 60) { NotifyListener.fields($0)["STOPPING"] == "1" }
        #expect(child.wait(timeout: 30) == 0, "an open client connection does not hold the stop up")
    }

    static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
