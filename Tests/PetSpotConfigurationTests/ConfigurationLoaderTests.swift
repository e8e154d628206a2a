import Glibc
import PetSpotConfiguration
import PetSpotLocation
import PetSpotPolicy
import PetSpotSettings
import Testing

/// The example of SPEC §4, verbatim.
let specExample = """
    [daemon]
    socket = "/run/petspot/locationd.sock"
    socket_mode = "0660"
    socket_group = "petspot"        # optional
    state_dir = "/var/lib/petspot-locationd"
    max_clients = 256
    audit_log = "/var/lib/petspot-locationd/audit.jsonl"

    [source]
    kind = "gpsd"                   # gpsd | static | simulated
    fallback = "static"             # optional: answers while the primary has no fix
    min_mode = 2

    [source.gpsd]
    host = "127.0.0.1"
    port = 2947
    reconnect_max = 5               # seconds: cap of the reconnect backoff
    device = ""                     # optional: only fixes from this device path
    silence_timeout = 10

    [source.static]
    latitude = 52.2297
    longitude = 21.0122
    horizontal_accuracy = 30.0

    [source.simulated]
    scenario = "config/scenarios/demo.json"   # the mock's script

    [policy]
    default = "notDetermined"       # any status; "authorized" means full accuracy
    prompt = "agent"                # agent | allow | deny
    prompt_timeout = 30
    reduced_accuracy_m = 3000

    [policy.agent]                  # who may register as prompt agent
    users = ["root"]
    groups = []

    [policy.admin]                  # who may reset decisions
    users = ["root"]
    groups = []

    [[policy.rules]]                # every key given must match
    user = "kiosk"                  # or uid, group, gid, unit, executable
    status = "authorized"
    accuracy = "full"
    """

/// Parses `text`, returning the errors (empty when it is valid).
func errors(_ text: String) -> [ConfigurationError] {
    do {
        _ = try ConfigurationLoader.parse(text: text)
        return []
    } catch {
        return error.errors
    }
}

/// The key paths of the errors of `text`.
func errorKeys(_ text: String) -> [String] { errors(text).compactMap(\.key) }

@Suite struct SpecExampleTests {
    @Test func parsesToExpectedValues() throws {
        let configuration = try ConfigurationLoader.parse(text: specExample, baseDirectory: "/etc/petspot")
        let daemon = configuration.daemon
        #expect(daemon.socket == "/run/petspot/locationd.sock")
        #expect(daemon.socketMode == 0o660)
        #expect(daemon.socketGroup == "petspot")
        #expect(daemon.stateDirectory == "/var/lib/petspot-locationd")
        #expect(daemon.maxClients == 256)
        #expect(daemon.auditLog == "/var/lib/petspot-locationd/audit.jsonl")
        #expect(daemon.auditLogMaxBytes == DaemonSettings.defaultAuditLogMaxBytes)

        let source = configuration.source
        #expect(source.kind == .gpsd)
        #expect(source.fallback == .static)
        #expect(source.minMode == .twoD)
        #expect(
            source.gpsd
                == GpsdSettings(
                    host: "127.0.0.1", port: 2947, reconnectMax: .seconds(5), device: nil,
                    silenceTimeout: .seconds(10)))
        #expect(
            source.static
                == StaticSourceSettings(
                    coordinate: Coordinate(latitude: 52.2297, longitude: 21.0122),
                    horizontalAccuracy: 30))
        #expect(source.static?.mode == .twoD)
        #expect(source.simulated?.scenario == "/etc/petspot/config/scenarios/demo.json")

        let policy = configuration.policy
        #expect(policy.defaultStatus == .notDetermined)
        #expect(policy.prompt == .agent)
        #expect(policy.promptTimeout == .seconds(30))
        #expect(policy.reducedAccuracyMeters == 3000)
        #expect(policy.agent == PrincipalSet(users: ["root"], groups: []))
        #expect(policy.admin == PrincipalSet(users: ["root"], groups: []))
        #expect(policy.rules == [PolicyRule(user: "kiosk", status: .authorized, accuracy: .full)])
    }

    @Test func emptyFileGivesDefaults() throws {
        let configuration = try ConfigurationLoader.parse(text: "")
        #expect(configuration == DaemonConfiguration())
        #expect(configuration.daemon.socket == "/run/petspot/locationd.sock")
        #expect(configuration.daemon.socketMode == 0o660)
        #expect(configuration.daemon.socketGroup == nil)
        #expect(configuration.daemon.stateDirectory == "/var/lib/petspot-locationd")
        #expect(configuration.daemon.maxClients == 256)
        #expect(configuration.daemon.auditLog == "/var/lib/petspot-locationd/audit.jsonl")
        #expect(configuration.daemon.auditLogMaxBytes == 10 * 1024 * 1024)
        #expect(configuration.source.kind == .gpsd)
        #expect(configuration.source.fallback == nil)
        #expect(configuration.source.minMode == .twoD)
        #expect(configuration.source.gpsd.host == "127.0.0.1")
        #expect(configuration.source.gpsd.port == 2947)
        #expect(configuration.source.gpsd.reconnectMax == .seconds(5))
        #expect(configuration.source.gpsd.device == nil)
        #expect(configuration.source.gpsd.silenceTimeout == .seconds(10))
        #expect(configuration.source.static == nil)
        #expect(configuration.source.simulated == nil)
        #expect(configuration.policy == Policy())
        #expect(configuration.policy.defaultStatus == .notDetermined)
        #expect(configuration.policy.prompt == .agent)
        #expect(configuration.policy.promptTimeout == .seconds(30))
        #expect(configuration.policy.reducedAccuracyMeters == 3000)
        #expect(configuration.policy.agent.users == ["root"])
        #expect(configuration.policy.admin.users == ["root"])
        #expect(configuration.policy.rules.isEmpty)
    }

    @Test func auditLogFollowsStateDir() throws {
        let configuration = try ConfigurationLoader.parse(text: "[daemon]\nstate_dir = \"/srv/petspot\"\n")
        #expect(configuration.daemon.auditLog == "/srv/petspot/audit.jsonl")
    }

    @Test func relativePathsResolveAgainstBaseDirectory() throws {
        let text = """
            [daemon]
            socket = "run/locationd.sock"
            state_dir = "./state"
            [source]
            kind = "simulated"
            [source.simulated]
            scenario = "scenarios/demo.json"
            """
        let configuration = try ConfigurationLoader.parse(text: text, baseDirectory: "/opt/petspot/config")
        #expect(configuration.daemon.socket == "/opt/petspot/config/run/locationd.sock")
        #expect(configuration.daemon.stateDirectory == "/opt/petspot/config/state")
        #expect(configuration.daemon.auditLog == "/opt/petspot/config/state/audit.jsonl")
        #expect(configuration.source.simulated?.scenario == "/opt/petspot/config/scenarios/demo.json")
        let unresolved = try ConfigurationLoader.parse(text: text)
        #expect(unresolved.source.simulated?.scenario == "scenarios/demo.json")
    }

    @Test func staticKindWithAltitudeIs3D() throws {
        let configuration = try ConfigurationLoader.parse(
            text: """
                [source]
                kind = "static"
                min_mode = 3
                [source.static]
                latitude = -33
                longitude = 151.2
                altitude = 58
                horizontal_accuracy = 0
                """)
        #expect(configuration.source.kind == .static)
        #expect(configuration.source.minMode == .threeD)
        #expect(configuration.source.static?.coordinate == Coordinate(latitude: -33, longitude: 151.2))
        #expect(configuration.source.static?.altitude == 58)
        #expect(configuration.source.static?.horizontalAccuracy == 0)
        #expect(configuration.source.static?.mode == .threeD)
    }

    @Test func fractionalDurationsAndDevice() throws {
        let configuration = try ConfigurationLoader.parse(
            text: """
                [source.gpsd]
                reconnect_max = 0.5
                silence_timeout = 2.25
                device = "/dev/ttyUSB0"
                [policy]
                prompt_timeout = 1.5
                """)
        #expect(configuration.source.gpsd.reconnectMax == .milliseconds(500))
        #expect(configuration.source.gpsd.silenceTimeout == .milliseconds(2250))
        #expect(configuration.source.gpsd.device == "/dev/ttyUSB0")
        #expect(configuration.policy.promptTimeout == .milliseconds(1500))
    }

    @Test func rulesWithEveryMatcher() throws {
        let configuration = try ConfigurationLoader.parse(
            text: """
                [[policy.rules]]
                uid = 0
                status = "authorized"
                [[policy.rules]]
                group = "petspot"
                gid = 990
                unit = "petspot-report.service"
                executable = "/usr/bin/petspot-report"
                status = "authorized"
                accuracy = "reduced"
                [[policy.rules]]
                user = "guest"
                status = "restricted"
                """)
        #expect(
            configuration.policy.rules == [
                PolicyRule(uid: 0, status: .authorized),
                PolicyRule(
                    group: "petspot", gid: 990, unit: "petspot-report.service", executable: "/usr/bin/petspot-report",
                    status: .authorized, accuracy: .reduced),
                PolicyRule(user: "guest", status: .restricted),
            ])
    }
}

@Test("kind = simulated without a scenario plays the built-in demo walk")
func simulatedWithoutScenarioUsesBuiltIn() throws {
    let configuration = try ConfigurationLoader.parse(text: "[source]\nkind = \"simulated\"\n")
    #expect(configuration.source.kind == .simulated)
    #expect(configuration.source.simulated?.scenario == nil)
    let rendered = configuration.renderTOML()
    #expect(try ConfigurationLoader.parse(text: rendered).source.kind == .simulated)
}
