import Glibc
import Foundation
import TestSupport

/// A real `petspot-locationd` on a simulated source with a given `[policy]`,
/// its socket world-connectable (0666) in a temporary directory that other
/// uids may traverse. Always stopped (SIGKILL at worst) by ``finish()``.
final class PolicyDaemon: @unchecked Sendable {
    let directory: TemporaryDirectory
    private(set) var child: ChildProcess?
    /// Everything the daemon logged so far (all its runs).
    var logs: String { (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "" }
    var logFile: String { directory.file("daemon.log") }

    var socket: String { directory.file("d.sock") }
    var stateDirectory: String { directory.file("state") }
    var decisionsFile: String { stateDirectory + "/decisions.json" }
    var auditLog: String { stateDirectory + "/audit.jsonl" }
    var configPath: String { directory.file("locationd.toml") }
    /// The audit log's text so far.
    var audit: String { (try? String(contentsOfFile: auditLog, encoding: .utf8)) ?? "" }

    /// A scenario walking about 20 m inside one 3 km grid cell, 100 fixes a second, forever.
    static let smallWalk = """
        {"loop": true, "steps": [
          {"path": {"from": {"latitude": 52.2301, "longitude": 21.0101},
                    "to": {"latitude": 52.2302, "longitude": 21.0103},
                    "count": 20, "interval": 0.01, "horizontalAccuracy": 5, "mode": 2}},
          {"path": {"from": {"latitude": 52.2302, "longitude": 21.0103},
                    "to": {"latitude": 52.2301, "longitude": 21.0101},
                    "count": 20, "interval": 0.01, "horizontalAccuracy": 5, "mode": 2}}
        ]}
        """

    /// Writes the configuration with `policy` (the TOML of `[policy]` and below).
    init(policy: String, scenario: String = PolicyDaemon.smallWalk) throws {
        directory = try TemporaryDirectory(prefix: "psperm")
        chmod(directory.path, 0o755)
        try directory.write("walk.json", scenario)
        try writeConfiguration(policy: policy)
    }

    /// Replaces the configuration file's `[policy]` part.
    func writeConfiguration(policy: String, daemon extra: String = "") throws {
        try directory.write(
            "locationd.toml",
            """
            [daemon]
            socket = "\(socket)"
            socket_mode = "0666"
            state_dir = "\(stateDirectory)"
            audit_log = "\(auditLog)"
            \(extra)

            [source]
            kind = "simulated"

            [source.simulated]
            scenario = "\(directory.file("walk.json"))"

            \(policy)
            """)
    }

    /// Starts the daemon and waits until its socket accepts connections.
    func start() throws {
        // The log goes to a file: an undrained pipe would fill and stall the daemon.
        let child = try ChildProcess(
            "/bin/sh",
            [
                "-c", "exec \"$0\" \"$@\" 2>>\"\(logFile)\"", RepositoryPaths.executable("petspot-locationd"),
                "--config", configPath, "--log-level", "info",
            ])
        self.child = child
        // No readiness signal reaches a test process: poll for the socket with a deadline.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if (try? RawSocket(path: socket)) != nil { return }
            guard child.process.isRunning else { break }
            usleep(20_000)
        }
        throw PolicyTestError("the daemon did not start serving on \(socket)")
    }

    /// Stops the daemon (SIGTERM, then SIGKILL past 30 s) and keeps its log.
    func stop() {
        guard let child else { return }
        if !child.process.isRunning {
            // It was not asked to stop: show why it ended (a test then fails on a closed connection).
            let log = (try? String(contentsOfFile: logFile, encoding: .utf8)) ?? "(no log)"
            print(
                "PolicyDaemon: the daemon had exited with status \(child.process.terminationStatus) before stop; its log:\n\(log)"
            )
        }
        child.signal(SIGTERM)
        _ = child.wait(timeout: 30)
        self.child = nil
    }

    /// Kills the daemon with SIGKILL at once.
    func kill() {
        guard let child else { return }
        child.signal(SIGKILL)
        _ = child.wait(timeout: 30)
        self.child = nil
    }

    /// Stops the daemon and removes the directory.
    func finish() {
        stop()
        directory.remove()
    }

    /// The daemon's resident set size in KiB (`VmRSS`), `nil` when not running.
    var residentKiB: Int? {
        guard let pid = child?.process.processIdentifier,
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }

    /// Sends the daemon SIGHUP and waits until `probe` (run on a new
    /// connection) says the new configuration is in force.
    func reload(until probe: (RawSocket) throws -> Bool) throws {
        child?.signal(SIGHUP)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            if try probe(try connect()) { return }
            usleep(20_000)
        }
        throw PolicyTestError("the reload did not take effect")
    }

    /// Connects an in-process client (this test's uid).
    func connect() throws -> RawSocket { try RawSocket(path: socket) }
}

/// A failed expectation outside `#expect`.
struct PolicyTestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
