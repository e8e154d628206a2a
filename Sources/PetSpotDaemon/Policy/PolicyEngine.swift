import Glibc
import Logging
import NIOCore
import PetSpotJSON
import PetSpotLocation
import PetSpotPolicy
import PetSpotProtocol
import Synchronization

/// The daemon's ``AccessPolicy``: the configured ``Policy`` (swapped on
/// reload), decisions remembered per uid in the state directory
/// (``DecisionStore``), allow-once grants per connection and the clients
/// seen lately, all in one store behind one `Mutex`. A grant is judged from
/// it synchronously (``grant(for:connection:)``: the rules and one lookup;
/// nothing waits under the lock), so a change is seen by the very next
/// request. Questions to the prompt agent go through its
/// ``PromptAgentDesk`` (the actor: prompts wait under exclusion); reloads
/// and resets wake the watchers (``AuthorizationChanges``) once the store
/// has changed.
///
/// What a reload changed for whom is read by ``update(policy:)`` atomically
/// with the swap and recorded by the reloader. A reload that no longer
/// lists the agent's user or groups drops the agent.
public final class PolicyEngine: AccessPolicy {
    /// Everything a grant is judged from.
    private struct Store {
        var policy: Policy
        var decisions: DecisionStore
        var allowOnce: [ConnectionID: (uid: UInt32, decision: RememberedDecision)] = [:]
        /// Clients seen lately, by uid (bounded): whose statuses a reload may move.
        var recentClients: [UInt32: ClientIdentity] = [:]

        mutating func grant(for client: ClientIdentity, connection: ConnectionID) -> AccessGrant {
            let state = status(for: client, connection: connection)
            let presentation = state.status == .authorized ? presentation(for: state.accuracy ?? .full) : nil
            return AccessGrant(state: state, presentation: presentation)
        }

        mutating func status(for client: ClientIdentity, connection: ConnectionID) -> AuthorizationState {
            noteSeen(client)
            // Empty tables are the common case: skip hashing for them.
            let once = allowOnce.isEmpty ? nil : allowOnce[connection]?.decision
            let remembered = once ?? decisions.decision(for: client.uid)
            return policy.resolve(for: client, remembered: remembered)
        }

        func presentation(for accuracy: AccuracyAuthorization) -> FixPresentation {
            accuracy == .reduced
                ? .reduced(cellMeters: policy.reducedAccuracyMeters, updateInterval: policy.reducedUpdateInterval)
                : .full
        }

        private mutating func noteSeen(_ client: ClientIdentity) {
            guard recentClients.index(forKey: client.uid) == nil else { return }
            if recentClients.count >= PolicyEngine.recentClientLimit, let any = recentClients.keys.first {
                recentClients[any] = nil
            }
            recentClients[client.uid] = client
        }
    }

    private let store: Mutex<Store>
    /// The watchers waiting for changes.
    private let changes = AuthorizationChanges()
    /// The prompt-agent protocol.
    private let agents: PromptAgentDesk
    private let audit: AuditLog?
    private let logger: Logger
    static let recentClientLimit = 1024

    /// Creates the engine.
    /// - Parameters:
    ///   - policy: the `[policy]` section.
    ///   - stateDirectory: `daemon.state_dir`, where `decisions.json` lives.
    ///   - audit: where authorization changes are recorded.
    ///   - sleeper: where a prompt's deadline is timed (the daemon: ``Sleeper/eventLoops(_:)``).
    public init(
        policy: Policy, stateDirectory: String, audit: AuditLog? = nil, logger: Logger, sleeper: Sleeper = .task
    ) {
        let decisions = DecisionStore(stateDirectory: stateDirectory, logger: logger)
        self.store = Mutex(Store(policy: policy, decisions: decisions))
        self.audit = audit
        self.logger = logger
        self.agents = PromptAgentDesk(audit: audit, logger: logger, sleeper: sleeper)
        if let quarantine = decisions.quarantine { audit?.record(Self.quarantineRecord(quarantine)) }
    }

    private static func quarantineRecord(_ quarantine: DecisionStore.Quarantine) -> AuditRecord {
        AuditRecord(
            method: AuditEvent.decisionsQuarantined.rawValue,
            client: ClientIdentity.daemonProcess,
            reason: "\(quarantine.reason); moved to \(quarantine.movedTo ?? "(could not be moved)")")
    }

    /// The policy in force.
    public var policy: Policy { store.withLock { $0.policy } }

    /// Clients seen lately (at most 1024, one per uid): whose statuses a
    /// reload may move.
    public var recentClients: [ClientIdentity] { store.withLock { Array($0.recentClients.values) } }

    /// The remembered decisions' state for `daemon.status`: `{"state": "ok",
    /// "count"}` or `{"state": "quarantined", "reason", "movedTo"?, "since"}`.
    public func decisionsStatus() -> JSONValue? {
        let (quarantine, count) = store.withLock { ($0.decisions.quarantine, $0.decisions.decisions.count) }
        guard let quarantine else { return ["state": "ok", "count": .number(Double(count))] }
        var status: [String: JSONValue] = [
            "state": "quarantined", "reason": .string(quarantine.reason), "since": .string(quarantine.since.iso8601),
        ]
        if let movedTo = quarantine.movedTo { status["movedTo"] = .string(movedTo) }
        return .object(status)
    }

    /// What a reload changed: the policy it replaced, and every client seen
    /// lately whose status or accuracy it moved.
    public struct Reload: Sendable {
        /// A client whose grant the reload moved.
        public struct Moved: Sendable, Equatable {
            public let client: ClientIdentity
            /// Its state under the policy replaced.
            public let was: AuthorizationState
            /// Its state under the policy now in force.
            public let now: AuthorizationState
        }
        /// The policy replaced.
        public let previous: Policy
        /// The clients it moved, in no particular order.
        public let moved: [Moved]
    }

    /// Puts a new policy in force (SIGHUP reload). Existing connections are
    /// judged by it from their next request or watch update on; watchers are
    /// woken once it is in force.
    ///
    /// The recent clients' states before are read under the same lock as the
    /// swap, and after in the same step as the swap (or, while the remembered
    /// decisions are quarantined, as the re-read file is installed), so a
    /// decision or reset taken by another connection meanwhile is never
    /// counted as the reload's: between the two steps nothing is remembered,
    /// since a quarantine refuses every decision.
    /// - Returns: the policy it replaced and the clients whose grant it moved.
    @discardableResult
    public func update(policy: Policy) async -> Reload {
        struct Swapped {
            let previous: Policy
            let clients: [ClientIdentity]
            let before: [AuthorizationState]
            /// Nil while the decisions are quarantined: read after the re-read file is installed.
            let after: [AuthorizationState]?
            let quarantined: DecisionStore?
        }
        let swapped = store.withLock { store in
            let clients = Array(store.recentClients.values)
            let before = clients.map { store.status(for: $0, connection: Self.noConnection) }
            let previous = store.policy
            store.policy = policy
            guard store.decisions.quarantine == nil else {
                return Swapped(
                    previous: previous, clients: clients, before: before, after: nil, quarantined: store.decisions)
            }
            let after = clients.map { store.status(for: $0, connection: Self.noConnection) }
            return Swapped(previous: previous, clients: clients, before: before, after: after, quarantined: nil)
        }
        var after = swapped.after ?? []
        // A reload is how an administrator ends a quarantine (a good file put
        // in place). The file is read outside the lock; while quarantined
        // nothing is remembered or forgotten, so the copy is still current.
        if var decisions = swapped.quarantined, let quarantine = decisions.quarantine {
            decisions.reload()
            let installed = store.withLock { store in
                let installed = store.decisions.quarantine == quarantine
                if installed { store.decisions = decisions }
                after = swapped.clients.map { store.status(for: $0, connection: Self.noConnection) }
                return installed
            }
            if installed, decisions.quarantine == nil {
                audit?.record(
                    AuditRecord(
                        method: AuditEvent.decisionsRestored.rawValue,
                        client: ClientIdentity.daemonProcess,
                        reason:
                            "quarantined since \(quarantine.since.iso8601); \(decisions.decisions.count) decisions in force"
                    ))
            } else if installed, let again = decisions.quarantine, again.movedTo != nil {
                audit?.record(Self.quarantineRecord(again))
            }
        }
        // Watchers re-check at once; the agent's check follows (its desk is an actor).
        changes.notify()
        let agentPrincipals = policy.agent
        await agents.dropAgent(unless: { agentPrincipals.contains($0) })
        var moved: [Reload.Moved] = []
        for (index, client) in swapped.clients.enumerated() {
            let (was, now) = (swapped.before[index], after[index])
            if was.status != now.status || was.accuracy != now.accuracy {
                moved.append(Reload.Moved(client: client, was: was, now: now))
            }
        }
        return Reload(previous: swapped.previous, moved: moved)
    }

    /// The connection a reload judges recent clients on: none, so no
    /// allow-once grant counts (those end with their connection).
    private static let noConnection = ConnectionID(0)

    /// Whether a prompt agent is registered.
    public var hasAgent: Bool { get async { await agents.hasAgent } }

    /// Prompts open now (tests, status).
    public var openPromptCount: Int { get async { await agents.openPromptCount } }

    /// Requests waiting on open prompts (tests).
    var promptWaiterCount: Int { get async { await agents.promptWaiterCount } }

    // MARK: AccessPolicy

    public func grant(for client: ClientIdentity, connection: ConnectionID) -> AccessGrant {
        store.withLock { $0.grant(for: client, connection: connection) }
    }

    /// How fixes are shown to a client granted `accuracy` under the policy in
    /// force (reduced accuracy snapping).
    public func presentation(for accuracy: AccuracyAuthorization) -> FixPresentation {
        store.withLock { $0.presentation(for: accuracy) }
    }

    public func request(
        for client: ClientIdentity, connection: ConnectionID, accuracy: AccuracyAuthorization
    ) async throws(LocationError) -> AuthorizationState {
        let (current, quarantine, policy) = store.withLock { store in
            (store.status(for: client, connection: connection), store.decisions.quarantine, store.policy)
        }
        guard current.status == .notDetermined else {
            audit?.record(AuditRecord(method: RPCMethod.authorizationRequest.rawValue, state: current, client: client))
            return current
        }
        // Quarantined decisions: this uid may have been denied; nobody is asked
        // (and nothing remembered) until an administrator restores the file.
        if let quarantine {
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
            // take the lock records it, the others find it decided. "Allow
            // once" is per connection: recorded once for each connection (a
            // flood of requests on one connection is one decision, one audit
            // record and one fdatasync, not one per request). The file's
            // write is queued under the lock, so writes land in the order of
            // the changes; it is waited for outside.
            let granted = answer.granted(requested: accuracy)
            let outcome: (decided: AuthorizationState?, written: EventLoopFuture<Void>?) = store.withLock { store in
                let decided = store.status(for: client, connection: connection)
                if decided.status != .notDetermined,
                    answer.decision != .allowOnce || store.allowOnce[connection] != nil
                {
                    return (decided, nil)
                }
                switch answer.decision {
                case .allow:
                    let decision = RememberedDecision(status: .authorized, accuracy: granted)
                    return (nil, store.decisions.remember(decision, for: client.uid)?.queueWrite())
                case .deny:
                    return (
                        nil,
                        store.decisions.remember(RememberedDecision(status: .denied), for: client.uid)?.queueWrite()
                    )
                case .allowOnce:
                    store.allowOnce[connection] = (
                        client.uid, RememberedDecision(status: .authorized, accuracy: granted)
                    )
                    return (nil, nil)
                }
            }
            if let decided = outcome.decided { return decided }
            if let written = outcome.written { await persisted(written) }
            how = answer.decision == .allowOnce ? "allowOnce" : "agent"
        }
        let state = store.withLock { $0.status(for: client, connection: connection) }
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

    public func reset(uid: UInt32, by client: ClientIdentity) async throws(LocationError) {
        let written: EventLoopFuture<Void>?? = store.withLock { store in
            guard store.policy.admin.contains(client) else { return .none }
            let written = store.decisions.forget(uid)?.queueWrite()
            store.allowOnce = store.allowOnce.filter { $0.value.uid != uid }
            return .some(written)
        }
        guard let written else {
            audit?.record(
                AuditRecord(
                    method: RPCMethod.authorizationReset.rawValue, client: client,
                    reason: LocationError.forbidden.reason,
                    targetUid: uid))
            throw .forbidden
        }
        if let written { await persisted(written) }
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
        guard mayBePromptAgent(client) else {
            audit?.record(
                AuditRecord(
                    method: RPCMethod.agentRegister.rawValue, client: client, reason: LocationError.forbidden.reason))
            throw .forbidden
        }
        await agents.register(client, connection: connection, send: send)
    }

    public func mayBePromptAgent(_ client: ClientIdentity) -> Bool {
        store.withLock { $0.policy.agent.contains(client) }
    }

    public func received(_ response: RPCResponse, connection: ConnectionID) async {
        await agents.received(response, connection: connection)
    }

    public func connectionClosed(_ connection: ConnectionID) async {
        // Only a connection with an allow-once grant changes a decision.
        if let grant = store.withLock({ $0.allowOnce.removeValue(forKey: connection) }) {
            audit?.record(
                AuditRecord(
                    method: AuditEvent.allowOnceEnded.rawValue, client: ClientIdentity(uid: grant.uid, gid: 0, pid: 0),
                    status: .notDetermined, reason: "the connection holding the allow-once grant closed"))
        }
        await agents.connectionClosed(connection)
    }

    public func authorizationChanges() -> AsyncStream<Void> { changes.subscribe() }

    /// Watchers subscribed to ``authorizationChanges()`` and not ended.
    public var authorizationObserverCount: Int { changes.observerCount }

    /// Remembers `decision` for `uid`; the file's write is queued under the
    /// lock (in the order of the changes) and waited for outside it.
    private func remember(_ decision: RememberedDecision, for uid: UInt32) async {
        let written = store.withLock { $0.decisions.remember(decision, for: uid)?.queueWrite() }
        if let written { await persisted(written) }
    }

    /// Waits for a write of the decisions file queued on the ``DiskThread``.
    private func persisted(_ written: EventLoopFuture<Void>) async {
        do {
            try await written.get()
        } catch {
            logger.error(
                "cannot write remembered decisions; kept in memory only", metadata: ["error": "\(error)"])
        }
    }
}
