import PetSpotLocation
import PetSpotPOSIX

/// The `[metrics]` section, the same in the daemon's and the kiosk's files.
///
/// - `textfile`: string, optional: where to write the Prometheus exposition
///   for node_exporter's textfile collector (a name ending in `.prom`, in the
///   collector's directory, e.g. `/var/lib/prometheus/node-exporter/petspot.prom`).
///   Unset: no metrics file (and no listener either way).
/// - `interval`: seconds between two writes, in 1...3600, default 15.
///
/// Relative paths are resolved against the configuration file's directory.
public struct MetricsSettings: Sendable, Hashable {
    /// Default `interval`.
    public static let defaultInterval: Duration = .seconds(15)

    /// The `.prom` file, when metrics are written.
    public var textfile: String?
    /// Time between two writes.
    public var interval: Duration

    public init(textfile: String? = nil, interval: Duration = MetricsSettings.defaultInterval) {
        self.textfile = textfile
        self.interval = interval
    }
}

extension TableReader {
    /// Reads a `[metrics]` table (see ``MetricsSettings``).
    package mutating func metricsSettings(
        relativeTo baseDirectory: String?, errors: inout [ConfigurationError]
    ) -> MetricsSettings {
        var settings = MetricsSettings()
        if let path = nonEmptyString("textfile", errors: &errors) {
            let name = PathName.name(of: path)
            if name.hasSuffix(".prom") && name != ".prom" && !path.hasSuffix("/") {
                settings.textfile = ConfigurationLoader.resolve(path, against: baseDirectory)
            } else {
                fail(
                    "textfile",
                    "must name a file ending in \".prom\" (node_exporter's textfile collector reads only those), found \"\(path)\"",
                    into: &errors)
            }
        }
        if let seconds = number(
            "interval", requirement: "a number of seconds from 1 to 3600", errors: &errors, { $0 >= 1 && $0 <= 3600 })
        {
            settings.interval = .fromSeconds(seconds)
        }
        reportUnknownKeys(errors: &errors)
        return settings
    }
}
