#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import PetSpotConfiguration
import PetSpotDaemon
import PetSpotPolicy

/// Re-reads the configuration file on SIGHUP and puts its `[policy]` in force.
///
/// A file that fails to load or validate leaves the running configuration
/// untouched, and the log says why. Changes outside `[policy]` (socket,
/// source, state directory, audit log, metrics) need a restart; they are
/// reported and ignored.
struct ConfigurationReloader: Sendable {
    /// The configuration file.
    let path: String
    /// The engine whose policy is swapped.
    let engine: PolicyEngine
    private let logger: Logger
    private let current: Current

    /// Creates a reloader of `path` into `engine`, starting from `running`.
    init(path: String, running: DaemonConfiguration, engine: PolicyEngine, logger: Logger) {
        self.path = path
        self.engine = engine
        self.logger = logger
        self.current = Current(running)
    }

    /// Reloads once.
    /// - Returns: whether the new configuration is in force.
    @discardableResult
    func reload() async -> Bool {
        let configuration: DaemonConfiguration
        do {
            configuration = try ConfigurationLoader.load(path: path)
        } catch {
            logger.error(
                "reload failed; keeping the running configuration",
                metadata: ["config": "\(path)", "errors": "\(error.description)"])
            return false
        }
        let running = await current.configuration
        if configuration.daemon != running.daemon || configuration.source != running.source
            || configuration.metrics != running.metrics
        {
            logger.warning("reload: [daemon], [source] and [metrics] changes take effect only after a restart")
        }
        for warning in configuration.warnings(daemonRunsAsRoot: geteuid() == 0) {
            logger.warning("configuration: \(warning)")
        }
        await engine.update(policy: configuration.policy)
        await current.set(configuration)
        logger.notice(
            "configuration reloaded",
            metadata: ["config": "\(path)", "rules": "\(configuration.policy.rules.count)"])
        return true
    }

    /// The configuration last put in force.
    actor Current {
        var configuration: DaemonConfiguration
        init(_ configuration: DaemonConfiguration) { self.configuration = configuration }
        func set(_ configuration: DaemonConfiguration) { self.configuration = configuration }
    }
}
