import Glibc
import Logging
import PetSpotConfiguration
import PetSpotDaemon
import PetSpotLocation
import PetSpotPolicy
import PetSpotSettings
import Synchronization

/// Re-reads the configuration file on SIGHUP and puts its `[policy]` in force.
///
/// The reload's diff lives here, not in the engine: what changed in the
/// policy, and every client seen lately whose status or accuracy moved, as
/// the engine read them in the same step as the swap
/// (``putInForce(_:engine:audit:)``), is recorded in the audit log.
///
/// A file that fails to load or validate leaves the running configuration
/// untouched, and the log says why. Changes outside `[policy]` (socket,
/// source, state directory, audit log, metrics) need a restart; they are
/// reported and ignored.
///
/// Reloads never overlap (the reload service serves one SIGHUP after
/// another), so the configuration in force is a value under a `Mutex`:
/// nothing waits for it.
final class ConfigurationReloader: Sendable {
    /// The configuration file.
    let path: String
    /// The engine whose policy is swapped.
    let engine: PolicyEngine
    /// Where the reload's changes are recorded.
    let audit: AuditLog?
    private let logger: Logger
    /// The configuration last put in force.
    private let current: Mutex<DaemonConfiguration>

    /// Creates a reloader of `path` into `engine`, starting from `running`.
    init(path: String, running: DaemonConfiguration, engine: PolicyEngine, audit: AuditLog?, logger: Logger) {
        self.path = path
        self.engine = engine
        self.audit = audit
        self.logger = logger
        self.current = Mutex(running)
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
        let running = current.withLock { $0 }
        if configuration.daemon != running.daemon || configuration.source != running.source
            || configuration.metrics != running.metrics
        {
            logger.warning("reload: [daemon], [source] and [metrics] changes take effect only after a restart")
        }
        for warning in configuration.warnings(daemonRunsAsRoot: geteuid() == 0) {
            logger.warning("configuration: \(warning)")
        }
        await Self.putInForce(configuration.policy, engine: engine, audit: audit)
        current.withLock { $0 = configuration }
        logger.notice(
            "configuration reloaded",
            metadata: ["config": "\(path)", "rules": "\(configuration.policy.rules.count)"])
        return true
    }

    /// Puts `policy` in force in `engine` and audits the reload: what
    /// changed in the policy (`policy.reloaded`), and each client seen lately
    /// whose status or accuracy it moved (`policy.statusChanged`), as the
    /// engine read them in the same step as the swap
    /// (``PolicyEngine/update(policy:)``). Nothing is recorded when the
    /// policy is the same.
    static func putInForce(_ policy: Policy, engine: PolicyEngine, audit: AuditLog?) async {
        let reload = await engine.update(policy: policy)
        guard reload.previous != policy, let audit else { return }
        audit.record(
            AuditRecord(
                method: AuditEvent.policyReloaded.rawValue, client: ClientIdentity.daemonProcess,
                reason: changes(from: reload.previous, to: policy)))
        for moved in reload.moved {
            audit.record(
                AuditRecord(
                    method: AuditEvent.policyStatusChanged.rawValue, client: moved.client, status: moved.now.status,
                    accuracy: moved.now.accuracy,
                    decidedBy: moved.now.decidedBy.rawValue,
                    reason: "was \(moved.was.status.rawValue)\(moved.was.accuracy.map { " (\($0.rawValue))" } ?? "")"))
        }
    }

    /// What changed from `previous` to `policy`, for the `policy.reloaded` record.
    static func changes(from previous: Policy, to policy: Policy) -> String {
        var changes: [String] = []
        if previous.defaultStatus != policy.defaultStatus {
            changes.append("default \(previous.defaultStatus.rawValue) → \(policy.defaultStatus.rawValue)")
        }
        if previous.prompt != policy.prompt {
            changes.append("prompt \(previous.prompt.rawValue) → \(policy.prompt.rawValue)")
        }
        let count = max(previous.rules.count, policy.rules.count)
        let changedRules = (0..<count).filter { index in
            (index < previous.rules.count ? previous.rules[index] : nil)
                != (index < policy.rules.count ? policy.rules[index] : nil)
        }
        if !changedRules.isEmpty {
            changes.append(
                "rules \(previous.rules.count) → \(policy.rules.count), changed at \(changedRules.map(String.init).joined(separator: ","))"
            )
        }
        if previous.agent != policy.agent || previous.admin != policy.admin { changes.append("agent/admin principals") }
        if previous.reducedAccuracyMeters != policy.reducedAccuracyMeters
            || previous.reducedUpdateInterval != policy.reducedUpdateInterval
            || previous.promptTimeout != policy.promptTimeout
        {
            changes.append("reduced accuracy or prompt timeout")
        }
        return changes.isEmpty ? "policy changed" : changes.joined(separator: "; ")
    }
}
