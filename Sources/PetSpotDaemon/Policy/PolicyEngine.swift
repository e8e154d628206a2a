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
import NIOConcurrencyHelpers

/// The daemon's ``AccessPolicy``: the configured ``Policy`` (swapped on
/// reload), decisions remembered per uid in the state directory, allow-once
/// grants per connection, and the prompt agent.
///
/// Prompt agent protocol: a client allowed by `[policy.agent]` calls
/// `agent.register`; for an `authorization.request` from a `notDetermined`
/// client under `prompt = "agent"` the daemon sends that connection a request
/// `agent.prompt` `{"client": {...}, "accuracy"}` with a numeric id, and waits
/// up to `prompt_timeout` for a response `{"decision": "allow"/"allowOnce"/"deny",
/// "accuracy"?}`. Answers count only from the agent the prompt is with; an
/// error response, a malformed answer, silence or the agent leaving mean
/// `promptUnavailable` and the client stays `notDetermined`.
///
/// Coalescing: at most one prompt is open per uid. Further requests of that
/// uid (any connection) wait on the same answer, until the open prompt's
/// deadline. A requester that leaves withdraws its interest; when nobody
/// waits any more the prompt is withdrawn and the agent gets the
/// notification `agent.cancel` `{"id"}`.
///
/// Second agent: the newest registration wins at once, whatever the old
/// agent's socket does (messages to agents are queued on their connection,
/// never awaited). The previous agent gets the notification `agent.replaced`;
/// the prompts it held move to the new agent (sent again, same ids) and its
/// answers no longer count. A reload that no longer lists the agent's user or
/// groups drops it. Registrations, replacements and removals are audited.
public actor PolicyEngine: AccessPolicy {
    /// The policy in force.
    public private(set) var policy: Policy { willSet { decisionsChange() } }
    private var store: DecisionStore { willSet { decisionsChange() } }
    private var allowOnce: [ConnectionID: (uid: UInt32, decision: RememberedDecision)] = [:] {
        willSet { decisionsChange() }
    }
    /// ``grantGeneration``: moved on, before the change, by every change of
    /// what ``status(for:connection:)`` can answer.
    private nonisolated let generation = NIOLockedValueBox<UInt64>(0)
    private var agent: Agent?
    /// Open prompts by id; at most one per uid (``promptByUid``).
    private var prompts: [Int: OpenPrompt] = [:]
    private var promptByUid: [UInt32: Int] = [:]
    private var nextPrompt = 0
    private var nextWaiter: UInt64 = 0
    /// Watchers waiting for authorization changes. Behind a lock rather
    /// than the actor so an ended watcher's stream removes itself at once
    /// (its termination handler is synchronous): no wake-ups to prune them.
    private nonisolated let observers = NIOLockedValueBox<Observers>(Observers())

    private struct Observers {
        var nextID: UInt64 = 0
        var byID: [UInt64: AsyncStream<Void>.Continuation] = [:]
    }
    private let audit: AuditLog?
    private let logger: Logger

    struct Agent {
        var connection: ConnectionID
        var client: ClientIdentity
        var send: MessageSink
    }

    /// One question to the agent and everyone waiting for its answer.
    struct OpenPrompt {
        var agent: ConnectionID
        var message: JSONValue
        var deadline: ContinuousClock.Instant
        var waiters: [UInt64: CheckedContinuation<AgentAnswer?, Never>] = [:]
    }

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
        if let quarantine = store.quarantine { audit?.record(Self.quarantineRecord(quarantine)) }
    }

    private static func quarantineRecord(_ quarantine: DecisionStore.Quarantine) -> AuditRecord {
        AuditRecord(
            method: "decisions.quarantined", client: ClientIdentity(uid: getuid(), gid: getgid(), pid: getpid()),
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
    public func update(policy: Policy) {
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
                        method: "decisions.restored", client: ClientIdentity(uid: getuid(), gid: getgid(), pid: getpid()),
                        reason: "quarantined since \(quarantine.since.iso8601); \(store.decisions.count) decisions in force"))
            } else if let again = store.quarantine, again.movedTo != nil {
                audit?.record(Self.quarantineRecord(again))
            }
        }
        recordPolicyChange(from: previous, clientsBefore: before)
        if let agent, !policy.agent.contains(agent.client) {
            logger.notice(
                "prompt agent no longer allowed by [policy.agent]; dropped", metadata: ["conn": "\(agent.connection)"])
            self.agent = nil
            audit?.record(
                AuditRecord(method: "agent.removed", client: agent.client, reason: "no longer allowed by [policy.agent]"))
            finishPrompts(heldBy: agent.connection)
        }
        notifyChanged()
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
        let daemon = ClientIdentity(uid: getuid(), gid: getgid(), pid: getpid())
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
                "rules \(previous.rules.count) → \(policy.rules.count), changed at \(changedRules.map(String.init).joined(separator: ","))")
        }
        if previous.agent != policy.agent || previous.admin != policy.admin { changes.append("agent/admin principals") }
        if previous.reducedAccuracyMeters != policy.reducedAccuracyMeters
            || previous.reducedUpdateInterval != policy.reducedUpdateInterval || previous.promptTimeout != policy.promptTimeout
        {
            changes.append("reduced accuracy or prompt timeout")
        }
        audit?.record(
            AuditRecord(
                method: "policy.reloaded", client: daemon,
                reason: changes.isEmpty ? "policy changed" : changes.joined(separator: "; ")))
        for (client, old) in clientsBefore {
            let new = status(for: client, connection: ConnectionID(0))
            guard new.status != old.status || new.accuracy != old.accuracy else { continue }
            audit?.record(
                AuditRecord(
                    method: "policy.statusChanged", client: client, status: new.status, accuracy: new.accuracy,
                    decidedBy: new.decidedBy.rawValue,
                    reason: "was \(old.status.rawValue)\(old.accuracy.map { " (\($0.rawValue))" } ?? "")"))
        }
    }

    /// Whether a prompt agent is registered.
    public var hasAgent: Bool { agent != nil }

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
            await record("authorization.request", current, client)
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
                    method: "authorization.request", client: client, status: .notDetermined,
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
            guard let answer = await ask(client: client, accuracy: accuracy) else {
                audit?.record(
                    AuditRecord(
                        method: "authorization.request", client: client, status: .notDetermined,
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
                method: "authorization.request", client: client, status: state.status, accuracy: state.accuracy,
                decidedBy: how))
        return state
    }

    public func grant(for client: ClientIdentity, connection: ConnectionID) -> AccessGrant {
        // Read inside the actor, where every change happens: the generation
        // and the decision belong together.
        let generation = self.generation.withLockedValue { $0 }
        let state = status(for: client, connection: connection)
        let presentation = state.status == .authorized ? presentation(for: state.accuracy ?? .full) : nil
        return AccessGrant(state: state, presentation: presentation, generation: generation)
    }

    public nonisolated var grantGeneration: UInt64? { generation.withLockedValue { $0 } }

    /// Runs before any change of the policy, the remembered decisions or the
    /// allow-once grants: grants kept by connections are no longer valid.
    private nonisolated func decisionsChange() {
        generation.withLockedValue { $0 &+= 1 }
    }

    public func presentation(for accuracy: AccuracyAuthorization) -> FixPresentation {
        accuracy == .reduced
            ? .reduced(cellMeters: policy.reducedAccuracyMeters, updateInterval: policy.reducedUpdateInterval) : .full
    }

    public func reset(uid: UInt32, by client: ClientIdentity) async throws(LocationError) {
        guard policy.admin.contains(client) else {
            audit?.record(
                AuditRecord(
                    method: "authorization.reset", client: client, reason: LocationError.forbidden.reason,
                    targetUid: uid))
            throw .forbidden
        }
        if let contents = store.forget(uid) { await persist(contents) }
        for (connection, grant) in allowOnce where grant.uid == uid { allowOnce[connection] = nil }
        notifyChanged()
        logger.notice("authorization reset", metadata: ["uid": "\(uid)", "by": "\(client.uid)"])
        audit?.record(
            AuditRecord(method: "authorization.reset", client: client, status: .notDetermined, targetUid: uid))
    }

    public func registerAgent(_ client: ClientIdentity, connection: ConnectionID, send: @escaping MessageSink)
        async throws(LocationError)
    {
        guard policy.agent.contains(client) else {
            audit?.record(
                AuditRecord(method: "agent.register", client: client, reason: LocationError.forbidden.reason))
            throw .forbidden
        }
        let previous = agent
        // The new agent is in place before anything is said to the old one.
        agent = Agent(connection: connection, client: client, send: send)
        logger.notice("prompt agent registered", metadata: ["conn": "\(connection)", "uid": "\(client.uid)"])
        if let previous, previous.connection != connection {
            logger.notice(
                "a newer prompt agent replaces the registered one",
                metadata: ["old": "\(previous.connection)", "new": "\(connection)"])
            audit?.record(
                AuditRecord(
                    method: "agent.replaced", client: previous.client,
                    reason: "replaced by uid \(client.uid) pid \(client.pid)"))
            try? await previous.send(
                RPCCodec.notification(method: RPCMethod.agentReplaced, params: ["by": .number(Double(client.pid))]))
            // Its prompts move to the new agent: the old one can no longer answer them.
            for (id, prompt) in prompts where prompt.agent == previous.connection {
                prompts[id]?.agent = connection
                do {
                    try await send(prompt.message)
                } catch {
                    finish(id, nil)
                }
            }
        }
        audit?.record(AuditRecord(method: "agent.register", client: client, decidedBy: "agent"))
    }

    public func mayBePromptAgent(_ client: ClientIdentity) -> Bool { policy.agent.contains(client) }

    public func received(_ response: RPCResponse, connection: ConnectionID) {
        guard case .number(let raw) = response.id, let id = Int(exactly: raw), let prompt = prompts[id],
            prompt.agent == connection
        else {
            logger.debug("ignored a response that answers no prompt", metadata: ["conn": "\(connection)"])
            return
        }
        switch response.outcome {
        case .success(let result):
            let answer = AgentAnswer(result)
            if answer == nil {
                logger.warning("malformed agent answer", metadata: ["answer": "\(result.serialized())"])
            }
            finish(id, answer)
        case .failure(let error):
            logger.info("the agent declined to answer", metadata: ["error": "\(error)"])
            finish(id, nil)
        }
    }

    public func connectionClosed(_ connection: ConnectionID) {
        // Only a connection with an allow-once grant changes a decision:
        // any other leaving must not void every connection's kept grant.
        let allowOnceEnding = allowOnce[connection]
        if allowOnceEnding != nil { allowOnce[connection] = nil }
        if let grant = allowOnceEnding {
            audit?.record(
                AuditRecord(
                    method: "authorization.allowOnceEnded", client: ClientIdentity(uid: grant.uid, gid: 0, pid: 0),
                    status: .notDetermined, reason: "the connection holding the allow-once grant closed"))
        }
        guard let agent, agent.connection == connection else { return }
        self.agent = nil
        logger.notice("prompt agent left", metadata: ["conn": "\(connection)"])
        audit?.record(AuditRecord(method: "agent.removed", client: agent.client, reason: "the agent disconnected"))
        finishPrompts(heldBy: connection)
    }

    /// Ends, unanswered, every prompt `connection` holds.
    private func finishPrompts(heldBy connection: ConnectionID) {
        for (id, prompt) in prompts where prompt.agent == connection { finish(id, nil) }
    }

    public func authorizationChanges() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = observers.withLockedValue { observers in
            observers.nextID &+= 1
            observers.byID[observers.nextID] = continuation
            return observers.nextID
        }
        continuation.onTermination = { [weak self] _ in self?.forgetObserver(id) }
        return stream
    }

    private nonisolated func forgetObserver(_ id: UInt64) {
        _ = observers.withLockedValue { $0.byID.removeValue(forKey: id) }
    }

    /// Watchers subscribed to ``authorizationChanges()`` and not ended.
    public nonisolated var authorizationObserverCount: Int { observers.withLockedValue { $0.byID.count } }

    /// Wakes every watcher to re-check its authorization.
    private func notifyChanged() {
        let continuations = observers.withLockedValue { Array($0.byID.values) }
        for continuation in continuations { continuation.yield(()) }
    }

    // MARK: Prompting

    /// Asks the agent about `client`, or joins the prompt already open for
    /// its uid; `nil` when there is no agent, it does not answer in time, or
    /// this requester was cancelled (its connection left).
    private func ask(client: ClientIdentity, accuracy: AccuracyAuthorization) async -> AgentAnswer? {
        guard let agent else { return nil }
        let id: Int
        var isNew = false
        if let open = promptByUid[client.uid], prompts[open] != nil {
            id = open
        } else {
            nextPrompt += 1
            id = nextPrompt
            isNew = true
            let message = RPCCodec.request(
                id: .number(Double(id)), method: RPCMethod.agentPrompt,
                params: AgentAnswer.promptParams(client: client, accuracy: accuracy))
            prompts[id] = OpenPrompt(
                agent: agent.connection, message: message, deadline: .now + policy.promptTimeout)
            promptByUid[client.uid] = id
            logger.info(
                "asking the prompt agent",
                metadata: ["prompt": "\(id)", "uid": "\(client.uid)", "agent": "\(agent.connection)"])
        }
        nextWaiter += 1
        let waiter = nextWaiter
        guard let deadline = prompts[id]?.deadline else { return nil }
        let newPromptAgent = isNew ? agent : nil
        return await withDeadline(deadline) {
            await self.finish(id, nil)
            return nil
        } operation: {
            await self.awaitAnswer(to: id, as: waiter, sendingTo: newPromptAgent)
        }
    }

    /// Waits as `waiter` for the answer to prompt `id`; sends the prompt to
    /// `agent` once this first waiter is in place (the send never waits on
    /// the agent's socket). A requester that leaves withdraws its interest.
    private func awaitAnswer(to id: Int, as waiter: UInt64, sendingTo agent: Agent?) async -> AgentAnswer? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard prompts[id] != nil else { return continuation.resume(returning: nil) }
                prompts[id]?.waiters[waiter] = continuation
                guard let agent, let message = prompts[id]?.message else { return }
                Task {
                    do {
                        try await agent.send(message)
                    } catch {
                        self.finish(id, nil)
                    }
                }
            }
        } onCancel: {
            // The requester left (its connection closed): withdraw its interest.
            Task { await self.withdraw(waiter, from: id) }
        }
    }

    /// Prompts open now (tests, status).
    public var openPromptCount: Int { prompts.count }

    /// Requests waiting on open prompts (tests).
    var promptWaiterCount: Int { prompts.values.reduce(0) { $0 + $1.waiters.count } }

    /// One requester no longer waits; a prompt nobody waits for is withdrawn.
    private func withdraw(_ waiter: UInt64, from id: Int) async {
        guard let continuation = prompts[id]?.waiters.removeValue(forKey: waiter) else { return }
        continuation.resume(returning: nil)
        guard let prompt = prompts[id], prompt.waiters.isEmpty else { return }
        prompts[id] = nil
        if let uid = promptByUid.first(where: { $0.value == id })?.key { promptByUid[uid] = nil }
        logger.info("prompt withdrawn: nobody waits for it", metadata: ["prompt": "\(id)"])
        guard let agent, agent.connection == prompt.agent else { return }
        try? await agent.send(
            RPCCodec.notification(method: RPCMethod.agentCancel, params: ["id": .number(Double(id))]))
    }

    /// Ends prompt `id` with `answer` for everyone waiting on it.
    private func finish(_ id: Int, _ answer: AgentAnswer?) {
        guard let prompt = prompts.removeValue(forKey: id) else { return }
        if let uid = promptByUid.first(where: { $0.value == id })?.key { promptByUid[uid] = nil }
        for continuation in prompt.waiters.values { continuation.resume(returning: answer) }
    }

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

    private func record(_ method: String, _ state: AuthorizationState, _ client: ClientIdentity) async {
        audit?.record(AuditRecord(method: method, state: state, client: client))
    }
}
