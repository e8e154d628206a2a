import Foundation

/// A real `petspot-locationd` process on a temporary socket, for
/// process-level tests. Start it with the TOML of the parts a test cares
/// about; `[daemon] socket` and `state_dir` point into a fresh temporary
/// directory. Always call ``stop()`` (or rely on deinit, which kills it).
public final class DaemonProcess: @unchecked Sendable {
    public let directory: TemporaryDirectory
    public let socketPath: String
    public let configPath: String
    public let child: ChildProcess

    /// Starts the daemon and waits until it serves.
    /// - Parameters:
    ///   - source: TOML for `[source]` and its subsections.
    ///   - daemon: extra lines for `[daemon]`.
    ///   - policy: TOML for `[policy]` (default: everyone authorized).
    ///   - files: extra files to write into the directory first (name → contents);
    ///     `{dir}` in any TOML or file is replaced by the directory's path.
    ///   - environment: extra environment variables for the daemon.
    public init(
        source: String,
        daemon: String = "",
        policy: String = "[policy]\ndefault = \"authorized\"\n",
        files: [String: String] = [:],
        environment: [String: String]? = nil,
        logLevel: String = "info"
    ) throws {
        directory = try TemporaryDirectory(prefix: "psd")
        socketPath = directory.file("locationd.sock")
        let dir = directory.path
        for (name, contents) in files {
            try directory.write(name, contents.replacingOccurrences(of: "{dir}", with: dir))
        }
        let toml = """
            [daemon]
            socket = "\(socketPath)"
            state_dir = "\(dir)/state"
            \(daemon)

            \(source)

            \(policy)
            """.replacingOccurrences(of: "{dir}", with: dir)
        configPath = try directory.write("locationd.toml", toml)
        child = try ChildProcess(
            RepositoryPaths.executable("petspot-locationd"), ["--config", configPath, "--log-level", logLevel],
            environment: environment)
        guard child.waitForStderr(containing: "serving", timeout: 60) else {
            child.terminate()
            throw StartFailure(description: "petspot-locationd did not start:\n\(child.errors())")
        }
    }

    struct StartFailure: Error, CustomStringConvertible {
        var description: String
    }

    /// Connects a raw client.
    public func connect() throws -> RawSocket { try RawSocket(path: socketPath) }

    /// Runs the `petspot-location` CLI against this daemon.
    public func cli(
        _ arguments: [String], timeout: Double = 60
    ) throws -> (status: Int32?, stdout: String, stderr: String) {
        try ChildProcess.run(
            RepositoryPaths.executable("petspot-location"), arguments + ["--socket", socketPath], timeout: timeout)
    }

    /// Stops with SIGTERM; returns the exit status (`nil` if it had to be killed).
    @discardableResult
    public func stop(timeout: Double = 10) -> Int32? {
        child.signal(SIGTERM)
        let status = child.wait(timeout: timeout)
        directory.remove()
        return status
    }

    deinit {
        child.terminate()
        directory.remove()
    }
}
