#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import PetSpotConfiguration
import PetSpotLocation
import PetSpotLocationMock

/// The embedded default: a simulated walk in Warsaw's Saski Park, no
/// hardware, everyone authorized, the socket in the user's runtime directory.
enum DemoConfiguration {
    /// The socket `--demo` serves on: `$XDG_RUNTIME_DIR/petspot-demo.sock`, else `/tmp/petspot-demo-UID.sock`.
    static var socketPath: String {
        if let runtime = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !runtime.isEmpty,
            FileManager.default.isWritableFile(atPath: runtime)
        {
            return runtime + "/petspot-demo.sock"
        }
        return "/tmp/petspot-demo-\(getuid()).sock"
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

    static func make() throws(ConfigurationErrors) -> DaemonConfiguration {
        var configuration = try ConfigurationLoader.parse(text: toml)
        var temporary = ProcessInfo.processInfo.environment["TMPDIR"] ?? ""
        if temporary.isEmpty { temporary = "/tmp" }
        if !temporary.hasSuffix("/") { temporary += "/" }
        let stateDirectory = temporary + "petspot-demo-\(getuid())"
        configuration.daemon.socket = socketPath
        configuration.daemon.stateDirectory = stateDirectory
        configuration.daemon.auditLog = stateDirectory + "/audit.jsonl"
        return configuration
    }

    /// A loop through the park: 40 fixes one second apart, there and back.
    static let scenario = Scenario(
        steps: [
            .path(
                from: Coordinate(latitude: 52.2297, longitude: 21.0122),
                to: Coordinate(latitude: 52.2409, longitude: 21.0050), count: 20, interval: .seconds(1),
                template: ScriptedFix(latitude: 52.2297, longitude: 21.0122, altitude: 110, horizontalAccuracy: 8, verticalAccuracy: 12, speed: 1.4, mode: .threeD)),
            .wait(.seconds(1)),
            .path(
                from: Coordinate(latitude: 52.2409, longitude: 21.0050),
                to: Coordinate(latitude: 52.2297, longitude: 21.0122), count: 20, interval: .seconds(1),
                template: ScriptedFix(latitude: 52.2409, longitude: 21.0050, altitude: 110, horizontalAccuracy: 8, verticalAccuracy: 12, speed: 1.4, mode: .threeD)),
            .wait(.seconds(1)),
        ],
        loops: true)
}
