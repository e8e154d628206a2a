import Glibc
import Logging
import Metrics
import PetSpotJSON
import PetSpotLocation
import PetSpotPolicy
import PetSpotProtocol

/// The prompt-agent protocol (SPEC §5): who the agent is, the prompts open
/// with it, and who waits for each answer. ``PolicyEngine`` decides who may
/// register and what an answer means; this desk only carries the questions.
///
/// A `notDetermined` client's `authorization.request` under `prompt =
/// "agent"` becomes a request `agent.prompt` `{"client": {...}, "accuracy"}`
/// with a numeric id on the agent's connection, answered within the prompt
/// timeout by `{"decision": "allow"/"allowOnce"/"deny", "accuracy"?}`.
/// Answers count only from the agent the prompt is with; an error response,
/// a malformed answer, silence or the agent leaving mean no answer (`nil`).
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
/// answers no longer count. Registrations, replacements and removals are audited.
actor PromptAgentDesk {
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
        var waiters: [UInt64: Waiter] = [:]
    }

    /// One requester waiting for a prompt's answer: resumed by the answer,
    /// or at once by its own cancellation (``ResumeOnce``).
    typealias Waiter = ResumeOnce<AgentAnswer?>

    private var agent: Agent?
    /// Open prompts by id; at most one per uid (``promptByUid``).
    private var prompts: [Int: OpenPrompt] = [:]
    private var promptByUid: [UInt32: Int] = [:]
    private var nextPrompt = 0
    private var nextWaiter: UInt64 = 0
    private let audit: AuditLog?
    private let logger: Logger
    /// Where a prompt's deadline is timed.
    private let sleeper: Sleeper
    /// `petspot_prompts_total{outcome}`: prompts sent to the agent (`asked`), and how
    /// each ended: `answered` (a valid decision), `timedOut`, or `unanswered`
    /// (declined, malformed, the agent left, or nobody waited any more).
    private let prompted: (asked: Counter, answered: Counter, timedOut: Counter, unanswered: Counter)

    init(audit: AuditLog?, logger: Logger, sleeper: Sleeper, metrics: any MetricsFactory = MetricsSystem.factory) {
        self.audit = audit
        self.logger = logger
        self.sleeper = sleeper
        func counter(_ outcome: String) -> Counter {
            Counter(label: "petspot_prompts_total", dimensions: [("outcome", outcome)], factory: metrics)
        }
        prompted = (counter("asked"), counter("answered"), counter("timedOut"), counter("unanswered"))
    }

    /// Whether an agent is registered.
    var hasAgent: Bool { agent != nil }

    /// Prompts open now (tests, status).
    var openPromptCount: Int { prompts.count }

    /// Requests waiting on open prompts (tests).
    var promptWaiterCount: Int { prompts.values.reduce(0) { $0 + $1.waiters.count } }

    // MARK: The agent

    /// Makes `connection` the agent (the caller checked it may be one). A
    /// previous agent is told it was replaced, and its prompts move here.
    func register(_ client: ClientIdentity, connection: ConnectionID, send: @escaping MessageSink) async {
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
                    method: AuditEvent.agentReplaced.rawValue, client: previous.client,
                    reason: "replaced by uid \(client.uid) pid \(client.pid)"))
            previous.send(
                RPCCodec.notification(method: RPCMethod.agentReplaced, params: ["by": .number(Double(client.pid))]))
            // Its prompts move to the new agent: the old one can no longer answer them.
            for (id, prompt) in prompts where prompt.agent == previous.connection {
                prompts[id]?.agent = connection
                send(prompt.message)
            }
        }
        audit?.record(AuditRecord(method: RPCMethod.agentRegister.rawValue, client: client, decidedBy: "agent"))
    }

    /// Drops the agent unless `stillAllowed` says it may stay (a reload);
    /// its prompts end unanswered.
    func dropAgent(unless stillAllowed: (ClientIdentity) -> Bool) {
        guard let agent, !stillAllowed(agent.client) else { return }
        logger.notice(
            "prompt agent no longer allowed by [policy.agent]; dropped", metadata: ["conn": "\(agent.connection)"])
        remove(agent, reason: "no longer allowed by [policy.agent]")
    }

    /// `connection` closed: if it was the agent, its prompts end unanswered.
    func connectionClosed(_ connection: ConnectionID) {
        guard let agent, agent.connection == connection else { return }
        logger.notice("prompt agent left", metadata: ["conn": "\(connection)"])
        remove(agent, reason: "the agent disconnected")
    }

    private func remove(_ leaving: Agent, reason: String) {
        agent = nil
        audit?.record(AuditRecord(method: AuditEvent.agentRemoved.rawValue, client: leaving.client, reason: reason))
        for (id, prompt) in prompts where prompt.agent == leaving.connection { finish(id, nil) }
    }

    /// A response arrived on `connection`: the answer to one of its prompts, or ignored.
    func received(_ response: RPCResponse, connection: ConnectionID) {
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

    // MARK: Prompts

    /// Asks the agent about `client`, or joins the prompt already open for
    /// its uid; `nil` when there is no agent, it does not answer within
    /// `timeout`, or this requester was cancelled (its connection left).
    func ask(client: ClientIdentity, accuracy: AccuracyAuthorization, timeout: Duration) async -> AgentAnswer? {
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
            prompts[id] = OpenPrompt(agent: agent.connection, message: message, deadline: .now + timeout)
            promptByUid[client.uid] = id
            prompted.asked.increment()
            logger.info(
                "asking the prompt agent",
                metadata: ["prompt": "\(id)", "uid": "\(client.uid)", "agent": "\(agent.connection)"])
        }
        nextWaiter += 1
        let waiter = nextWaiter
        guard let deadline = prompts[id]?.deadline else { return nil }
        let newPromptAgent = isNew ? agent : nil
        return await withDeadline(deadline, sleeper: sleeper) {
            await self.finish(id, nil, timedOut: true)
            return nil
        } operation: {
            await self.awaitAnswer(to: id, as: waiter, sendingTo: newPromptAgent)
        }
    }

    /// Waits as `waiter` for the answer to prompt `id`; sends the prompt to
    /// `agent` once this first waiter is in place (the send never waits on
    /// the agent's socket). A requester that leaves (its task cancelled:
    /// its connection closed) is resumed at once and withdraws its interest.
    private func awaitAnswer(to id: Int, as number: UInt64, sendingTo agent: Agent?) async -> AgentAnswer? {
        let waiter = Waiter()
        let answer = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                guard prompts[id] != nil, waiter.wait(continuation) else {
                    return continuation.resume(returning: nil)
                }
                prompts[id]?.waiters[number] = waiter
                guard let agent, let message = prompts[id]?.message else { return }
                agent.send(message)
            }
        } onCancel: {
            waiter.resume(nil)
        }
        if Task.isCancelled { withdraw(number, from: id) }
        return answer
    }

    /// One requester no longer waits; a prompt nobody waits for is withdrawn.
    private func withdraw(_ number: UInt64, from id: Int) {
        guard let waiter = prompts[id]?.waiters.removeValue(forKey: number) else { return }
        waiter.resume(nil)
        guard let prompt = prompts[id], prompt.waiters.isEmpty else { return }
        prompts[id] = nil
        prompted.unanswered.increment()
        if let uid = promptByUid.first(where: { $0.value == id })?.key { promptByUid[uid] = nil }
        logger.info("prompt withdrawn: nobody waits for it", metadata: ["prompt": "\(id)"])
        guard let agent, agent.connection == prompt.agent else { return }
        agent.send(RPCCodec.notification(method: RPCMethod.agentCancel, params: ["id": .number(Double(id))]))
    }

    /// Ends prompt `id` with `answer` for everyone waiting on it.
    private func finish(_ id: Int, _ answer: AgentAnswer?, timedOut: Bool = false) {
        guard let prompt = prompts.removeValue(forKey: id) else { return }
        (answer != nil ? prompted.answered : timedOut ? prompted.timedOut : prompted.unanswered).increment()
        if let uid = promptByUid.first(where: { $0.value == id })?.key { promptByUid[uid] = nil }
        for waiter in prompt.waiters.values { waiter.resume(answer) }
    }
}
