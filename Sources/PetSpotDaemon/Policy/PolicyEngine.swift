#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Logging
import NIOCore
import PetSpotJSON
import PetSpotLocation
import PetSpotPolicy
import PetSpotProtocol

/// The daemon's ``AccessPolicy``: the configured ``Policy`` (swapped on
/// reload), decisions remembered per uid in the state directory
/// (``DecisionStore``), and allow-once grants per connection. Questions to
/// the prompt agent go through its ``PromptAgentDesk``; every change moves
/// ``AuthorizationChanges`` on (kept grants, watchers' re-checks).
///
/// A reload that no longer lists the agent's user or groups drops the agent.
public actor PolicyEngine: AccessPolicy {
    /// The policy in force.
    public private(set) var policy: Policy { willSet { changes.advance() } }
    private var store: DecisionStore { willSet { changes.advance() } }
    private var allowOnce: [ConnectionID: (uid: UInt32, decision: RememberedDecision)] = [:] {
        willSet { changes.advance() }
    }
    /// The generation and the watchers waiting for changes.
    private nonisolated let changes = AuthorizationChanges()
    /// The prompt-agent protocol.
    private let agents: PromptAgentDesk
    private let audit: AuditLog?
    private let logger: Logger

    /// Creates the engine.
    /// - Parameters:
    ///   - policy: the `[policy]` section.
    ///   - stateDirectory: `daemon.state_dir`, where `decisions.json` lives.
    ///   - audit: where authorization changes are recorded.
    public init(policy: Policy, stateDirectory: String, audit: AuditLog? = nil, logger: Logger) {
        self.policy = policy
        self.store = DecisionStore(stateDirectory: stateDirectory, logger: logger)
        self.audit = audit
        self.logger = logger
        self.agents = PromptAgentDesk(audit: audit, logger: logger)
        if let quarantine = store.quarantine { audit?.record(Self.quarantineRecord(quarantine)) }
    }

    private static func quarantineRecord(_ quarantine: DecisionStore.Quarantine) -> AuditRecord {
        AuditRecord(
            method: AuditEvent.decisionsQuarantined.rawValue,
            client: ClientIdentity.daemonProcess,
            reason: "\(quarantine.reason); moved to \(quarantine.movedTo ?? "(could not be moved)")")
    }

    /// The remembered decisions' state for `daemon.status`: `{"state": "ok",
    /// "count"}` or `{"state": "quarantined", "reason", "movedTo"?, "since"}`.
    public func decisionsStatus() -> JSONValue? {
        guard let quarantine = store.quarantine else {
            return ["state": "ok", "count": .number(Double(store.decisions.count))]
        }
        var status: [String: JSONValue] = [
            "state": "quarantined", "reason": .string(quarantine.reason), "since": .string(quarantine.since.iso8601),
        ]
        if let movedTo = quarantine.movedTo { status["movedTo"] = .string(movedTo) }
        return .object(status)
    }

    /// Puts a new policy in force (SIGHUP reload). Existing connections are
    /// judged by it from their next call or watch update on.
    public func update(policy: Policy) async {
        let previous = self.policy
        // What each client seen lately was granted, before and after (audited below).
        let before = recentClients.values.map { ($0, status(for: $0, connection: ConnectionID(0))) }
        self.policy = policy
        // A reload is how an administrator ends a quarantine (a good file put in place).
        if let quarantine = store.quarantine {
            store.reload()
            if store.quarantine == nil {
                audit?.record(
                    AuditRecord(
                        method: AuditEvent.decisionsRestored.rawValue,
                        client: ClientIdentity.daemonProcess,
                        reason:
                            "quarantined since \(quarantine.since.iso8601); \(store.decisions.count) decisions in force"
                    ))
            } else if let again = store.quarantine, again.movedTo != nil {
                audit?.record(Self.quarantineRecord(again))
            }
        }
        recordPolicyChange(from: previous, clientsBefore: before)
        // Watchers re-check at once; the agent's check follows (its desk is another actor).
        changes.notify()
        let agentPrincipals = policy.agent
        await agents.dropAgent(unless: { agentPrincipals.contains($0) })
    }

    /// Clients seen lately, by uid (bounded): whose statuses a reload may move.
    private var recentClients: [UInt32: ClientIdentity] = [:]
    static let recentClientLimit = 1024

    private func noteSeen(_ client: ClientIdentity) {
        guard recentClients[client.uid] == nil else { return }
        if recentClients.count >= Self.recentClientLimit, let any = recentClients.keys.first {
            recentClients[any] = nil
        }
        recentClients[client.uid] = client
    }

    /// Audits a reload: what changed in the policy, and every recently seen
    /// client whose status or accuracy it moved.
    private func recordPolicyChange(from previous: Policy, clientsBefore: [(ClientIdentity, AuthorizationState)]) {
        guard previous != policy else { return }
        let daemon = ClientIdentity.daemonProcess
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
        audit?.record(
            AuditRecord(
                method: AuditEvent.policyReloaded.rawValue, client: daemon,
                reason: changes.isEmpty ? "policy changed" : changes.joined(separator: "; ")))
        for (client, old) in clientsBefore {
            let new = status(for: client, connection: ConnectionID(0))
            guard new.status != old.status || new.accuracy != old.accuracy else { continue }
            audit?.record(
                AuditRecord(
                    method: AuditEvent.policyStatusChanged.rawValue, client: client, status: new.status,
                    accuracy: new.accuracy,
                    decidedBy: new.decidedBy.rawValue,
                    reason: "was \(old.status.rawValue)\(old.accuracy.map { " (\($0.rawValue))" } ?? "")"))
        }
    }

    /// Whether a prompt agent is registered.
    public var hasAgent: Bool { get async { await agents.hasAgent } }

    /// Prompts open now (tests, status).
    public var openPromptCount: Int { get async { await agents.openPromptCount } }

    /// Requests waiting on open prompts (tests).
    var promptWaiterCount: Int { get async { await agents.promptWaiterCount } }

    // MARK: AccessPolicy

    public func status(for client: ClientIdentity, connection: ConnectionID) -> AuthorizationState {
        noteSeen(client)
        let remembered = allowOnce[connection].map(\.decision) ?? store.decision(for: client.uid)
        return policy.resolve(for: client, remembered: remembered)
    }

    public func request(
        for client: ClientIdentity, connection: ConnectionID, accuracy: AccuracyAuthorization
    ) async throws(LocationError) -> AuthorizationState {
        let current = status(for: client, connection: connection)
        guard current.status == .notDetermined else {
            audit?.record(AuditRecord(method: RPCMethod.authorizationRequest.rawValue, state: current, client: client))
            return current
        }
        // Quarantined decisions: this uid may have been denied; nobody is asked
        // (and nothing remembered) until an administrator restores the file.
        if let quarantine = store.quarantine {
            logger.warning(
                "authorization request refused: remembered decisions are quarantined",
                metadata: ["uid": "\(client.uid)", "movedTo": "\(quarantine.movedTo ?? "-")"])
            audit?.record(
                AuditRecord(
                    method: RPCMethod.authorizationRequest.rawValue, client: client, status: .notDetermined,
                    reason: "\(LocationError.promptUnavailable.reason): remembered decisions quarantined"))
            throw .promptUnavailable
        }
        let how: String
        switch policy.prompt {
        case .allow:
            await remember(RememberedDecision(status: .authorized, accuracy: accuracy), for: client.uid)
            how = "prompt"
        case .deny:
            await remember(RememberedDecision(status: .denied), for: client.uid)
            how = "prompt"
        case .agent:
            guard let answer = await agents.ask(client: client, accuracy: accuracy, timeout: policy.promptTimeout)
            else {
                audit?.record(
                    AuditRecord(
                        method: RPCMethod.authorizationRequest.rawValue, client: client, status: .notDetermined,
                        reason: LocationError.promptUnavailable.reason))
                throw .promptUnavailable
            }
            // Requests coalesced on one prompt get one answer; the first to
            // resume records it, the others find it decided. "Allow once" is
            // per connection: recorded once for each connection (a flood of
            // requests on one connection is one decision, one audit record
            // and one fdatasync, not one per request).
            let decided = status(for: client, connection: connection)
            if decided.status != .notDetermined, answer.decision != .allowOnce || allowOnce[connection] != nil {
                return decided
            }
            let granted = answer.granted(requested: accuracy)
            switch answer.decision {
            case .allow:
                await remember(RememberedDecision(status: .authorized, accuracy: granted), for: client.uid)
            case .deny:
                await remember(RememberedDecision(status: .denied), for: client.uid)
            case .allowOnce:
                allowOnce[connection] = (client.uid, RememberedDecision(status: .authorized, accuracy: granted))
            }
            how = answer.decision == .allowOnce ? "allowOnce" : "agent"
        }
        let state = status(for: client, connection: connection)
        logger.notice(
            "authorization decided",
            metadata: ["uid": "\(client.uid)", "status": "\(state.status.rawValue)", "by": "\(how)"])
        audit?.record(
            AuditRecord(
                method: RPCMethod.authorizationRequest.rawValue, client: client, status: state.status,
                accuracy: state.accuracy,
                decidedBy: how))
        return state
    }

    public func grant(for client: ClientIdentity, connection: ConnectionID) -> AccessGrant {
        // Read inside the actor, where every change happens: the generation
        // and the decision belong together.
        let generation = changes.current
        let state = status(for: client, connection: connection)
        let presentation = state.status == .authorized ? presentation(for: state.accuracy ?? .full) : nil
        return AccessGrant(state: state, presentation: presentation, generation: generation)
    }

    public nonisolated var grantGeneration: UInt64? { changes.current }

    public func presentation(for accuracy: AccuracyAuthorization) -> FixPresentation {
        accuracy == .reduced
            ? .reduced(cellMeters: policy.reducedAccuracyMeters, updateInterval: policy.reducedUpdateInterval) : .full
    }

    public func reset(uid: UInt32, by client: ClientIdentity) async throws(LocationError) {
        guard policy.admin.contains(client) else {
            audit?.record(
                AuditRecord(
                    method: RPCMethod.authorizationReset.rawValue, client: client,
                    reason: LocationError.forbidden.reason,
                    targetUid: uid))
            throw .forbidden
        }
        if let contents = store.forget(uid) { await persist(contents) }
        for (connection, grant) in allowOnce where grant.uid == uid { allowOnce[connection] = nil }
        changes.notify()
        logger.notice("authorization reset", metadata: ["uid": "\(uid)", "by": "\(client.uid)"])
        audit?.record(
            AuditRecord(
                method: RPCMethod.authorizationReset.rawValue, client: client, status: .notDetermined, targetUid: uid))
    }

    public func registerAgent(
        _ client: ClientIdentity, connection: ConnectionID, send: @escaping MessageSink
    )
        async throws(LocationError)
    {
        guard policy.agent.contains(client) else {
            audit?.record(
                AuditRecord(
                    method: RPCMethod.agentRegister.rawValue, client: client, reason: LocationError.forbidden.reason))
            throw .forbidden
        }
        await agents.register(client, connection: connection, send: send)
    }

    public func mayBePromptAgent(_ client: ClientIdentity) -> Bool { policy.agent.contains(client) }

    public func received(_ response: RPCResponse, connection: ConnectionID) async {
        await agents.received(response, connection: connection)
    }

    public func connectionClosed(_ connection: ConnectionID) async {
        // Only a connection with an allow-once grant changes a decision:
        // any other leaving must not void every connection's kept grant.
        let allowOnceEnding = allowOnce[connection]
        if allowOnceEnding != nil { allowOnce[connection] = nil }
        if let grant = allowOnceEnding {
            audit?.record(
                AuditRecord(
                    method: AuditEvent.allowOnceEnded.rawValue, client: ClientIdentity(uid: grant.uid, gid: 0, pid: 0),
                    status: .notDetermined, reason: "the connection holding the allow-once grant closed"))
        }
        await agents.connectionClosed(connection)
    }

    public func authorizationChanges() -> AsyncStream<Void> { changes.subscribe() }

    /// Watchers subscribed to ``authorizationChanges()`` and not ended.
    public nonisolated var authorizationObserverCount: Int { changes.observerCount }

    private func remember(_ decision: RememberedDecision, for uid: UInt32) async {
        guard let contents = store.remember(decision, for: uid) else { return }
        await persist(contents)
    }

    /// Writes the decisions file off the actor's thread, in the order of the
    /// changes: queued here, before this actor can run anything else.
    private func persist(_ contents: DecisionStore.Contents) async {
        let written = contents.queueWrite()
        do {
            try await written.get()
        } catch {
            logger.error(
                "cannot write remembered decisions; kept in memory only", metadata: ["error": "\(error)"])
        }
    }
}
