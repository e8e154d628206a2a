public import PetSpotLocation

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
    /// Only fixes from this device path; `nil` takes every device, and so
    /// does `""`, which is stored as `nil` (a filter on the empty path would
    /// drop every report).
    public var device: String? {
        didSet { if device?.isEmpty == true { device = nil } }
    }
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
        self.device = (device?.isEmpty ?? true) ? nil : device
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
