import Logging
import PetSpotConfiguration
import PetSpotDaemon
import PetSpotLocation
import PetSpotPOSIX
import PetSpotSettings

extension LocationDaemon {
    /// The daemon a loaded configuration describes, serving from `source`:
    /// the one way `petspot-locationd` (and the in-process tests) assemble it.
    /// Here, not in `PetSpotDaemon`: the library knows nothing of the TOML
    /// file (it takes a reload closure).
    ///
    /// Makes or checks the state directory and the audit log's directory
    /// (``TrustedDirectory``) before anything in them is read or written,
    /// then opens the audit log and the ``PolicyEngine`` (which reads the
    /// remembered decisions).
    /// - Parameters:
    ///   - configuration: the validated configuration.
    ///   - source: the position source (built by the caller: the daemon
    ///     library does not know every kind, gpsd in particular).
    ///   - configurationPath: the file SIGHUP re-reads for a new `[policy]`;
    ///     `nil`: SIGHUP is logged and ignored (the embedded demo).
    ///   - systemd: the passed socket, notify socket and watchdog, if any.
    /// - Throws: the refusal of an untrusted state or audit directory.
    public init(
        configuration: DaemonConfiguration, source: DaemonSource, reloadingFrom configurationPath: String?,
        logger: Logger, systemd: SystemdIntegration = .none
    ) throws(TrustedDirectory.Refusal) {
        let daemonSettings = configuration.daemon
        let auditDirectory = PathName.directory(of: daemonSettings.auditLog).flatMap { $0 == "/" ? nil : $0 }
        for directory in Set([daemonSettings.stateDirectory, auditDirectory].compactMap { $0 }) where !directory.isEmpty
        {
            try TrustedDirectory.prepare(directory)
        }
        let audit = AuditLog(
            path: daemonSettings.auditLog, maxBytes: daemonSettings.auditLogMaxBytes,
            generations: daemonSettings.auditLogGenerations, logger: logger)
        let engine = PolicyEngine(
            policy: configuration.policy, stateDirectory: daemonSettings.stateDirectory, audit: audit, logger: logger,
            sleeper: .eventLoops())
        var onReload: (@Sendable () async -> Bool)?
        if let configurationPath {
            let reloader = ConfigurationReloader(
                path: configurationPath, running: configuration, engine: engine, audit: audit, logger: logger)
            onReload = { await reloader.reload() }
        }
        self.init(
            settings: daemonSettings, source: source, policy: engine, audit: audit, logger: logger,
            onReload: onReload, systemd: systemd)
        // A fixed station with a live receiver: the receiver tells whether it moved.
        if configuration.source.kind != .static, let home = configuration.source.static {
            station = StationWatch(
                home: home.coordinate, radius: home.movedRadius, hold: home.movedAfter, hub: source.hub, audit: audit,
                logger: logger)
        }
        nmea = configuration.nmea
    }
}
