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

    /// Creates settings; the defaults are those of an empty `[metrics]` table.
    public init(textfile: String? = nil, interval: Duration = MetricsSettings.defaultInterval) {
        self.textfile = textfile
        self.interval = interval
    }
}
