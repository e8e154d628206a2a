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
