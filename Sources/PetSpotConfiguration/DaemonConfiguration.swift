public import PetSpotLocation
public import PetSpotPolicy

/// The whole `petspot-locationd` configuration, with every default filled in.
///
/// Sections: `[daemon]` (``DaemonSettings``), `[source]` (``SourceSettings``),
/// `[policy]` (``PetSpotPolicy/Policy``), `[metrics]` (``MetricsSettings``)
/// and `[nmea]` (``NMEASettings``). Load one with
/// ``ConfigurationLoader``; print it with ``renderTOML()``.
public struct DaemonConfiguration: Sendable, Hashable {
    /// `[daemon]`.
    public var daemon: DaemonSettings
    /// `[source]`.
    public var source: SourceSettings
    /// `[policy]`.
    public var policy: Policy
    /// `[metrics]`.
    public var metrics: MetricsSettings
    /// `[nmea]`, when the file has one with a socket.
    public var nmea: NMEASettings?

    /// Creates a configuration; the defaults are those of an empty file.
    public init(
        daemon: DaemonSettings = DaemonSettings(), source: SourceSettings = SourceSettings(), policy: Policy = Policy(),
        metrics: MetricsSettings = MetricsSettings(), nmea: NMEASettings? = nil
    ) {
        self.daemon = daemon
        self.source = source
        self.policy = policy
        self.metrics = metrics
        self.nmea = nmea
    }
}

/// The `[daemon]` section.
///
/// - `socket`: string, default `"/run/petspot/locationd.sock"` (at most 107 bytes).
/// - `socket_mode`: string of octal digits, default `"0660"`.
/// - `socket_group`: string, optional (default: the daemon's group).
/// - `state_dir`: string, default `"/var/lib/petspot-locationd"`.
/// - `max_clients`: integer in 1...65536, default 256.
/// - `audit_log`: string, default `"<state_dir>/audit.jsonl"`.
/// - `audit_log_max_bytes`: integer ≥ 4096, default 10485760 (10 MiB); the
///   audit log is rotated when it would grow past this size.
/// - `audit_log_generations`: integer in 1...100, default 5: rotated audit files kept.
/// - `max_clients_per_uid`: integer in 1...max_clients, default a quarter of
///   `max_clients` (at least 1): connections one uid may hold at once.
///   Clients allowed by `[policy.agent]` are not counted against it, and
///   ``reservedSlots`` of `max_clients` are kept for them.
/// - `idle_timeout`: seconds, default 300: a connection with nothing in
///   flight, no watch and no agent role is closed after this long without a request.
///
/// Relative paths are resolved against the configuration file's directory.
public struct DaemonSettings: Sendable, Hashable {
    /// Default `socket`.
    public static let defaultSocket = DaemonSocket.defaultPath
    /// Default `socket_mode`.
    public static let defaultSocketMode: UInt32 = 0o660
    /// Default `state_dir`.
    public static let defaultStateDirectory = "/var/lib/petspot-locationd"
    /// Default `max_clients`.
    public static let defaultMaxClients = 256
    /// Default `audit_log_max_bytes` (10 MiB).
    public static let defaultAuditLogMaxBytes = 10 * 1024 * 1024
    /// Default `audit_log_generations`.
    public static let defaultAuditLogGenerations = 5
    /// Default `idle_timeout`.
    public static let defaultIdleTimeout: Duration = .seconds(300)

    /// Path of the listening Unix socket.
    public var socket: String
    /// Permission bits of the socket file.
    public var socketMode: UInt32
    /// Group owning the socket file, when set.
    public var socketGroup: String?
    /// Where decisions are remembered.
    public var stateDirectory: String
    /// Most clients connected at once.
    public var maxClients: Int
    /// Path of the JSON-lines audit log.
    public var auditLog: String
    /// Size at which the audit log is rotated.
    public var auditLogMaxBytes: Int
    /// Rotated audit files kept.
    public var auditLogGenerations = DaemonSettings.defaultAuditLogGenerations
    /// Connections one uid may hold at once; `nil`: a quarter of ``maxClients``.
    public var maxClientsPerUidSetting: Int?
    /// How long an idle connection is kept.
    public var idleTimeout = DaemonSettings.defaultIdleTimeout

    /// Connections one uid may hold at once (`max_clients_per_uid`).
    public var maxClientsPerUid: Int { maxClientsPerUidSetting ?? max(1, maxClients / 4) }
    /// Slots of `max_clients` only prompt agents may take: so a flood of
    /// other clients can never lock the kiosk's UI out.
    public var reservedSlots: Int { maxClients >= 8 ? max(1, min(8, maxClients / 16)) : 0 }

    /// Creates settings; `auditLog` defaults to `<stateDirectory>/audit.jsonl`.
    public init(
        socket: String = DaemonSettings.defaultSocket,
        socketMode: UInt32 = DaemonSettings.defaultSocketMode,
        socketGroup: String? = nil,
        stateDirectory: String = DaemonSettings.defaultStateDirectory,
        maxClients: Int = DaemonSettings.defaultMaxClients,
        auditLog: String? = nil,
        auditLogMaxBytes: Int = DaemonSettings.defaultAuditLogMaxBytes
    ) {
        self.socket = socket
        self.socketMode = socketMode
        self.socketGroup = socketGroup
        self.stateDirectory = stateDirectory
        self.maxClients = maxClients
        self.auditLog = auditLog ?? DaemonSettings.defaultAuditLog(stateDirectory: stateDirectory)
        self.auditLogMaxBytes = auditLogMaxBytes
    }

    /// `<stateDirectory>/audit.jsonl`.
    public static func defaultAuditLog(stateDirectory: String) -> String {
        stateDirectory.hasSuffix("/") ? stateDirectory + "audit.jsonl" : stateDirectory + "/audit.jsonl"
    }

    /// ``socketMode`` as four octal digits (`"0660"`).
    public var socketModeString: String { Self.octal(socketMode) }

    /// A permission mode as four octal digits (`"0660"`).
    public static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}

/// The `[source]` section.
///
/// - `kind`: `"gpsd"` | `"static"` | `"simulated"`, default `"gpsd"`.
/// - `fallback`: `"static"`, optional; answers while the primary has no fix.
///   Needs `kind` other than `static` and a valid `[source.static]`.
/// - `min_mode`: integer 2 or 3, default 2.
/// - `[source.gpsd]`: ``GpsdSettings`` (always present, defaults filled in).
/// - `[source.static]`: ``StaticSourceSettings``; required with `kind = "static"`.
/// - `[source.simulated]`: ``SimulatedSourceSettings``; optional (`kind = "simulated"` without it plays the built-in demo walk).
public struct SourceSettings: Sendable, Hashable {
    /// The primary source.
    public var kind: FixSourceKind
    /// The fallback source (only `static`).
    public var fallback: FixSourceKind?
    /// The least fix dimension accepted.
    public var minMode: FixMode
    /// `[source.gpsd]`.
    public var gpsd: GpsdSettings
    /// `[source.static]`, when configured.
    public var `static`: StaticSourceSettings?
    /// `[source.simulated]`, when configured.
    public var simulated: SimulatedSourceSettings?

    /// Creates settings.
    public init(
        kind: FixSourceKind = .gpsd, fallback: FixSourceKind? = nil, minMode: FixMode = .twoD,
        gpsd: GpsdSettings = GpsdSettings(), static: StaticSourceSettings? = nil,
        simulated: SimulatedSourceSettings? = nil
    ) {
        self.kind = kind
        self.fallback = fallback
        self.minMode = minMode
        self.gpsd = gpsd
        self.static = `static`
        self.simulated = simulated
    }
}

/// The `[source.gpsd]` section.
///
/// - `host`: string, default `"127.0.0.1"`.
/// - `port`: integer in 1...65535, default 2947.
/// - `reconnect_max`: seconds (integer or float) in (0, 3600], default 5;
///   the cap of the reconnect backoff.
/// - `device`: string, optional; `""` means any device.
/// - `silence_timeout`: seconds in (0, 3600], default 10; a connected gpsd
///   silent this long counts as down.
/// - `owner`: user name, default `"gpsd"`; a gpsd on loopback is trusted
///   only when its socket belongs to root or this user (anyone else listening
///   on the port could feed the daemon positions).
public struct GpsdSettings: Sendable, Hashable {
    /// Default `host`.
    public static let defaultHost = "127.0.0.1"
    /// Default `port`.
    public static let defaultPort = 2947
    /// Default `reconnect_max`.
    public static let defaultReconnectMax: Duration = .seconds(5)
    /// Default `silence_timeout`.
    public static let defaultSilenceTimeout: Duration = .seconds(10)
    /// Default `owner`.
    public static let defaultOwner = "gpsd"

    /// gpsd's host.
    public var host: String
    /// gpsd's TCP port.
    public var port: Int
    /// Cap of the reconnect backoff.
    public var reconnectMax: Duration
    /// Only fixes from this device path, when set.
    public var device: String?
    /// No-data watchdog.
    public var silenceTimeout: Duration
    /// Besides root, the user whose loopback gpsd socket is trusted.
    public var owner: String

    /// Creates settings.
    public init(
        host: String = GpsdSettings.defaultHost, port: Int = GpsdSettings.defaultPort,
        reconnectMax: Duration = GpsdSettings.defaultReconnectMax, device: String? = nil,
        silenceTimeout: Duration = GpsdSettings.defaultSilenceTimeout, owner: String = GpsdSettings.defaultOwner
    ) {
        self.owner = owner
        self.host = host
        self.port = port
        self.reconnectMax = reconnectMax
        self.device = device
        self.silenceTimeout = silenceTimeout
    }
}

/// The `[source.static]` section: a fixed, configured position.
///
/// - `latitude`: number in [-90, 90], required.
/// - `longitude`: number in [-180, 180], required.
/// - `horizontal_accuracy`: metres ≥ 0, default 30.
/// - `altitude`: metres, optional; makes the static fix 3D.
/// - `moved_radius_m`: metres > 0, default 200, and `moved_after`: seconds,
///   default 60. The moved-station alarm, armed when the primary source is
///   live (gpsd or simulated) and this position is configured (typically
///   as `fallback`): the station counts as moved once every fix for
///   `moved_after` seconds lies farther than `moved_radius_m` from this
///   position, and as back once every fix for as long lies within it, so
///   multipath jitter never trips it.
public struct StaticSourceSettings: Sendable, Hashable {
    /// Default `horizontal_accuracy`.
    public static let defaultHorizontalAccuracy = 30.0
    /// Default `moved_radius_m`.
    public static let defaultMovedRadius = 200.0
    /// Default `moved_after`.
    public static let defaultMovedAfter: Duration = .seconds(60)

    /// The position (valid).
    public var coordinate: Coordinate
    /// Reported horizontal accuracy.
    public var horizontalAccuracy: Double
    /// Altitude, when configured.
    public var altitude: Double?
    /// Farther than this from ``coordinate`` is away (metres).
    public var movedRadius: Double
    /// How long every fix must agree before the station counts as moved (or back).
    public var movedAfter: Duration

    /// Creates settings.
    public init(
        coordinate: Coordinate, horizontalAccuracy: Double = StaticSourceSettings.defaultHorizontalAccuracy,
        altitude: Double? = nil, movedRadius: Double = StaticSourceSettings.defaultMovedRadius,
        movedAfter: Duration = StaticSourceSettings.defaultMovedAfter
    ) {
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
        self.altitude = altitude
        self.movedRadius = movedRadius
        self.movedAfter = movedAfter
    }

    /// 3D when an altitude is configured, else 2D.
    public var mode: FixMode { altitude == nil ? .twoD : .threeD }
}

/// The `[source.simulated]` section.
///
/// - `scenario`: string, optional (default: the built-in demo walk); the mock's script. A relative path is
///   resolved against the configuration file's directory.
public struct SimulatedSourceSettings: Sendable, Hashable {
    /// Path of the scenario file; `nil` plays the built-in demo walk.
    public var scenario: String?

    /// Creates settings.
    public init(scenario: String?) {
        self.scenario = scenario
    }
}
