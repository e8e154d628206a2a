import FoundationEssentials
import Glibc
import PetSpotConfiguration
import PetSpotLocation
import PetSpotSettings
import PetSpotSimulatedSource

/// The embedded default: a simulated walk in Warsaw's Saski Park, no
/// hardware, everyone authorized.
///
/// Its state (audit log, decisions) lives in a fresh private folder made by
/// `mkdtemp` under `$XDG_RUNTIME_DIR` (else `$TMPDIR`, else `/tmp`) and
/// removed when the daemon stops: never a predictable `/tmp` name another
/// user could have planted first. The socket is
/// `$XDG_RUNTIME_DIR/petspot-demo.sock` (a directory only its user can
/// write), else inside that private folder; `--socket` overrides it.
enum DemoConfiguration {
    /// A writable `$XDG_RUNTIME_DIR`, if there is one.
    static var runtimeDirectory: String? {
        guard let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !runtime.isEmpty,
            access(runtime, W_OK) == 0
        else { return nil }
        return runtime
    }

    /// Why the demo's private folder could not be made.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    static let toml = """
        # The embedded demo configuration of petspot-locationd --demo.
        [daemon]
        socket_mode = "0600"
        max_clients = 64

        [source]
        kind = "simulated"
        fallback = "static"

        [source.static]
        latitude = 52.2297
        longitude = 21.0122
        horizontal_accuracy = 50.0

        [policy]
        default = "authorized"
        prompt = "allow"
        """

    /// The demo configuration, with its private state folder made (the
    /// caller removes `stateDirectory` when the daemon stops).
    static func make() throws -> DaemonConfiguration {
        var configuration = try ConfigurationLoader.parse(text: toml)
        var base = runtimeDirectory ?? ProcessInfo.processInfo.environment["TMPDIR"] ?? ""
        if base.isEmpty { base = "/tmp" }
        var template = Array((base + "/petspot-demo.XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw Failure(description: "cannot make a private folder in \(base): \(String(cString: strerror(errno)))")
        }
        let stateDirectory = String(cString: made)
        // mkdtemp's 0700 is filtered by the daemon's umask (0177): make it exact.
        guard chmod(stateDirectory, 0o700) == 0 else {
            throw Failure(description: "cannot chmod \(stateDirectory): \(String(cString: strerror(errno)))")
        }
        configuration.daemon.socket =
            runtimeDirectory.map { $0 + "/petspot-demo.sock" } ?? stateDirectory + "/locationd.sock"
        configuration.daemon.stateDirectory = stateDirectory
        configuration.daemon.auditLog = stateDirectory + "/audit.jsonl"
        return configuration
    }

    /// A loop through the park: 40 fixes one second apart, there and back.
    static let scenario: Scenario = {
        let gate = Coordinate(latitude: 52.2297, longitude: 21.0122)
        let pond = Coordinate(latitude: 52.2409, longitude: 21.0050)
        /// Twenty fixes walking from `from` to `to`, then a pause.
        func leg(from: Coordinate, to: Coordinate) -> [Scenario.Step] {
            let template = ScriptedFix(
                latitude: from.latitude, longitude: from.longitude, altitude: 110, horizontalAccuracy: 8,
                verticalAccuracy: 12, speed: 1.4, mode: .threeD)
            return [
                .path(from: from, to: to, count: 20, interval: .seconds(1), template: template), .wait(.seconds(1)),
            ]
        }
        return Scenario(steps: leg(from: gate, to: pond) + leg(from: pond, to: gate), loops: true)
    }()
}
