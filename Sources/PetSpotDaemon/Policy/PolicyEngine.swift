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
/// `agent.register`; for each `authorization.request` from a
/// `notDetermined` client under `prompt = "agent"` the daemon sends that
/// connection a request `agent.prompt` `{"client": {...}, "accuracy"}` with
/// a numeric id, and waits up to `prompt_timeout` for a response
/// `{"decision": "allow"/"allowOnce"/"deny", "accuracy"?}`. Answers count
/// only from the connection the prompt went to; an error response, a
/// malformed answer, silence or the agent leaving mean `promptUnavailable`
/// and the client stays `notDetermined`.
///
/// Second agent: the newest registration wins. The previous agent gets the
/// notification `agent.replaced` and receives no new prompts; prompts it
/// already holds can still be answered by it until their timeout.
/// A reload that no longer lists the agent's user or groups drops it.
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
    private var pending: [Int: Pending] = [:]
    private var nextPrompt = 0
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

    enum Pending {
        case waiting(agent: ConnectionID, CheckedContinuation<AgentAnswer?, Never>?)
        case answered(AgentAnswer?)
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
    }

    /// Puts a new policy in force (SIGHUP reload). Existing connections are
    /// judged by it from their next call or watch update on.
    public func update(policy: Policy) {
        self.policy = policy
        if let agent, !policy.agent.contains(agent.client) {
            logger.notice(
                "prompt agent no longer allowed by [policy.agent]; dropped", metadata: ["conn": "\(agent.connection)"])
            self.agent = nil
        }
        notifyChanged()
    }

    /// The decisions remembered now, by uid.
    public var rememberedDecisions: [UInt32: RememberedDecision] { store.decisions }

    /// Whether a prompt agent is registered.
    public var hasAgent: Bool { agent != nil }

    // MARK: AccessPolicy

    public func status(for client: ClientIdentity, connection: ConnectionID) -> AuthorizationState {
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
                await audit?.record(
                    AuditRecord(
                        method: "authorization.request", client: client, status: .notDetermined,
                        reason: LocationError.promptUnavailable.reason))
                throw .promptUnavailable
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
        await audit?.record(
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
        accuracy == .reduced ? .reduced(cellMeters: policy.reducedAccuracyMeters) : .full
    }

    public func reset(uid: UInt32, by client: ClientIdentity) async throws(LocationError) {
        guard policy.admin.contains(client) else {
            await audit?.record(
                AuditRecord(
                    method: "authorization.reset", client: client, reason: LocationError.forbidden.reason,
                    targetUid: uid))
            throw .forbidden
        }
        if let contents = store.forget(uid) { await persist(contents) }
        for (connection, grant) in allowOnce where grant.uid == uid { allowOnce[connection] = nil }
        notifyChanged()
        logger.notice("authorization reset", metadata: ["uid": "\(uid)", "by": "\(client.uid)"])
        await audit?.record(
            AuditRecord(method: "authorization.reset", client: client, status: .notDetermined, targetUid: uid))
    }

    public func registerAgent(_ client: ClientIdentity, connection: ConnectionID, send: @escaping MessageSink)
        async throws(LocationError)
    {
        guard policy.agent.contains(client) else { throw .forbidden }
        if let previous = agent, previous.connection != connection {
            logger.notice(
                "a newer prompt agent replaces the registered one",
                metadata: ["old": "\(previous.connection)", "new": "\(connection)"])
            try? await previous.send(
                RPCCodec.notification(method: "agent.replaced", params: ["by": .number(Double(client.pid))]))
        }
        agent = Agent(connection: connection, client: client, send: send)
        logger.notice("prompt agent registered", metadata: ["conn": "\(connection)", "uid": "\(client.uid)"])
    }

    public func received(_ response: RPCResponse, connection: ConnectionID) {
        guard case .number(let raw) = response.id, let id = Int(exactly: raw),
            case .waiting(let agentConnection, _)? = pending[id], agentConnection == connection
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
        if allowOnce[connection] != nil { allowOnce[connection] = nil }
        guard agent?.connection == connection else { return }
        agent = nil
        logger.notice("prompt agent left", metadata: ["conn": "\(connection)"])
        for (id, state) in pending {
            if case .waiting(connection, _) = state { finish(id, nil) }
        }
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

    /// Asks the agent about `client`; `nil` when there is none or it does not answer in time.
    private func ask(client: ClientIdentity, accuracy: AccuracyAuthorization) async -> AgentAnswer? {
        guard let agent else { return nil }
        nextPrompt += 1
        let id = nextPrompt
        pending[id] = .waiting(agent: agent.connection, nil)
        let message = RPCCodec.request(
            id: .number(Double(id)), method: RPCMethod.agentPrompt,
            params: AgentAnswer.promptParams(client: client, accuracy: accuracy))
        let timeout = policy.promptTimeout
        return await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await agent.send(message)
                } catch {
                    await self.finish(id, nil)
                }
            }
            group.addTask {
                // The bound of the wait: cancelled as soon as the answer is in.
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                await self.finish(id, nil)
            }
            let answer = await wait(id)
            group.cancelAll()
            return answer
        }
    }

    private func wait(_ id: Int) async -> AgentAnswer? {
        if case .answered(let answer)? = pending[id] {
            pending[id] = nil
            return answer
        }
        return await withCheckedContinuation { continuation in
            if case .waiting(let agent, _)? = pending[id] {
                pending[id] = .waiting(agent: agent, continuation)
            } else {
                continuation.resume(returning: nil)
            }
        }
    }

    private func finish(_ id: Int, _ answer: AgentAnswer?) {
        guard case .waiting(_, let continuation)? = pending[id] else { return }
        if let continuation {
            pending[id] = nil
            continuation.resume(returning: answer)
        } else {
            pending[id] = .answered(answer)
        }
    }

    private func remember(_ decision: RememberedDecision, for uid: UInt32) async {
        await persist(store.remember(decision, for: uid))
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
        await audit?.record(AuditRecord(method: method, state: state, client: client))
    }
}
