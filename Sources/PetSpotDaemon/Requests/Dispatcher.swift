import Logging
import Metrics
import PetSpotFixHub
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol

/// Sends one message to the client of a connection.
public typealias MessageSink = @Sendable (JSONValue) async throws -> Void

/// What handling one request yields: the answer (none for a notification)
/// and, for `location.watch`, the work that streams updates once the
/// answer has been written.
public struct DispatchOutcome: Sendable {
    public var reply: JSONValue?
    public var followUp: (@Sendable () async -> Void)?

    public init(reply: JSONValue?, followUp: (@Sendable () async -> Void)? = nil) {
        self.reply = reply
        self.followUp = followUp
    }
}

/// Answers JSON-RPC requests for one daemon: the methods of SPEC §5 over a
/// position source's hub, an access policy and the client registry.
/// Transport-free (watch updates go to the connection's ``UpdateOutlet``),
/// so tests drive it directly.
public struct Dispatcher: Sendable {
    /// Where positions come from (every kind of source is a hub).
    public let hub: FixHub
    public let policy: any AccessPolicy
    public let registry: ClientRegistry
    public let startedAt: ContinuousClock.Instant
    public let logger: Logger
    /// Where location requests are recorded (SPEC §6), when configured.
    public let audit: AuditLog?
    private let metrics: DaemonMetrics
    /// Delivers ``hub``'s fixes to watchers loop by loop.
    public let fanOut: WatchFanOut
    /// The moved-station alarm, for `daemon.status`.
    public let station: StationWatch?

    public init(
        hub: FixHub,
        policy: any AccessPolicy,
        registry: ClientRegistry,
        logger: Logger,
        fanOut: WatchFanOut,
        audit: AuditLog? = nil,
        station: StationWatch? = nil,
        metrics: any MetricsFactory = MetricsSystem.factory,
        startedAt: ContinuousClock.Instant = .now
    ) {
        self.fanOut = fanOut
        self.station = station
        self.metrics = DaemonMetrics(factory: metrics)
        self.hub = hub
        self.policy = policy
        self.registry = registry
        self.logger = logger
        self.audit = audit
        self.startedAt = startedAt
    }

    /// Handles one decoded line.
    public func handle(
        _ inbound: RPCInbound, session: ClientSession, send: @escaping MessageSink
    ) async
        -> DispatchOutcome
    {
        switch inbound {
        case .failure(let error):
            metrics.error(error)
            return DispatchOutcome(reply: RPCCodec.response(id: .null, error: error))
        case .single(let parsed):
            return await handle(parsed, session: session, send: send)
        case .batch(let elements):
            var replies: [JSONValue] = []
            var followUps: [@Sendable () async -> Void] = []
            for element in elements {
                let outcome = await handle(element, session: session, send: send)
                if let reply = outcome.reply { replies.append(reply) }
                if let followUp = outcome.followUp { followUps.append(followUp) }
            }
            var combined: (@Sendable () async -> Void)?
            if !followUps.isEmpty {
                let all = followUps
                combined = { @Sendable in
                    await withDiscardingTaskGroup { group in
                        for followUp in all { group.addTask { await followUp() } }
                    }
                }
            }
            return DispatchOutcome(reply: replies.isEmpty ? nil : .array(replies), followUp: combined)
        }
    }

    /// Answers `line` at once, on the caller's thread, when it is a
    /// `location.get` that nothing has to wait for: the client's grant is
    /// kept and still valid (``ClientSession/keep(_:)``), and the source has
    /// a fix that answers it now. The answer, audit record and counters are
    /// those ``handle(_:session:send:)`` gives; `nil` means "not at once",
    /// and the line must go to ``handle(_:session:send:)``.
    ///
    /// The audit record is not written here: the caller writes
    /// ``ImmediateAnswer/auditLine`` before the answer (``AnswerBatch``).
    /// `previous`, the answer this connection was given last, is reused when
    /// its fix answers again: a fix is serialized once, not per request.
    ///
    /// This is the common request; answered here it costs no task, actor
    /// hop or async write (docs/PERFORMANCE.md).
    public func answerAtOnce(
        _ line: some Collection<UInt8>, session: ClientSession, reusing previous: GetAnswer? = nil
    ) -> ImmediateAnswer? {
        let now = ContinuousClock.now
        guard let grant = session.grant(valid: policy.grantGeneration),
            grant.state.status == .authorized, let presentation = grant.presentation,
            let get = LocationGetLine.read(line) ?? Self.generalLocationGet(line),
            let fix = hub.cachedAnswer(presentation.serving(get.request), at: now)
        else { return nil }
        let id = get.id
        metrics.answered(RPCMethod.locationGet.rawValue)
        let shown = presentation.apply(fix)
        let answer = previous.flatMap { $0.fix == shown ? $0 : nil } ?? GetAnswer(fix: shown)
        let auditLine =
            audit == nil
            ? nil
            : answered(shown, accuracy: grant.state.accuracy ?? .full, session: session, at: now)
                .jsonLine(client: session.auditClient)
        return ImmediateAnswer(answer: answer, id: id, answeredAt: now, auditLine: auditLine)
    }

    /// A `location.get` line outside ``LocationGetLine``'s subset, read the general way.
    private static func generalLocationGet(_ line: some Collection<UInt8>) -> LocationGetLine? {
        guard case .single(.request(let request)) = RPCCodec.decode(line: line),
            request.method == RPCMethod.locationGet.rawValue, let id = request.id,
            let options = try? RPCParams.locationGet(request.params)
        else { return nil }
        return LocationGetLine(id: id, request: options)
    }

    /// Handles one message of a line.
    public func handle(
        _ parsed: RPCParsed, session: ClientSession, send: @escaping MessageSink
    ) async
        -> DispatchOutcome
    {
        switch parsed {
        case .invalid(let id, let error):
            metrics.error(error)
            return DispatchOutcome(reply: RPCCodec.response(id: id, error: error))
        case .response(let response):
            // Responses answer what the daemon asked (agent.prompt); they get no answer.
            await policy.received(response, connection: session.id)
            return DispatchOutcome(reply: nil)
        case .request(let request):
            do {
                let (result, followUp) = try await call(request, session: session, send: send)
                metrics.answered(request.method)
                guard let id = request.id else { return DispatchOutcome(reply: nil, followUp: followUp) }
                return DispatchOutcome(reply: RPCCodec.response(id: id, result: result), followUp: followUp)
            } catch {
                metrics.failed(request.method, error)
                guard let id = request.id else { return DispatchOutcome(reply: nil) }
                return DispatchOutcome(reply: RPCCodec.response(id: id, error: error))
            }
        }
    }

    private func call(
        _ request: RPCRequest, session: ClientSession, send: @escaping MessageSink
    )
        async throws(RPCError) -> (JSONValue, (@Sendable () async -> Void)?)
    {
        guard let method = RPCMethod(rawValue: request.method) else { throw .methodNotFound(request.method) }
        switch method {
        case .locationGet:
            let options = try RPCParams.locationGet(request.params)
            return (try await locationGet(options, session: session), nil)
        case .locationWatch:
            let options = try RPCParams.locationWatch(request.params)
            return try await locationWatch(options, session: session, send: send)
        case .locationUnwatch:
            let number = try RPCParams.locationUnwatch(request.params)
            guard await session.closeSubscription(number) else {
                throw .invalidParams("params.subscription: no subscription \(number) on this connection")
            }
            return (.bool(true), nil)
        case .authorizationStatus:
            try RPCParams.none(request.params)
            return (WireCoding.encode(await policy.status(for: session.identity, connection: session.id)), nil)
        case .authorizationRequest:
            let accuracy = try RPCParams.authorizationRequest(request.params)
            do {
                let state = try await policy.request(for: session.identity, connection: session.id, accuracy: accuracy)
                return (WireCoding.encode(state), nil)
            } catch {
                throw RPCError(error)
            }
        case .authorizationReset:
            let uid = try RPCParams.authorizationReset(request.params)
            do {
                try await policy.reset(uid: uid, by: session.identity)
            } catch {
                throw RPCError(error)
            }
            return (.bool(true), nil)
        case .agentRegister:
            try RPCParams.none(request.params)
            // Messages to the agent are queued, never awaited, when the transport allows it.
            var toAgent = send
            if let post = session.post { toAgent = { @Sendable message in post(message) } }
            do {
                try await policy.registerAgent(session.identity, connection: session.id, send: toAgent)
            } catch {
                throw RPCError(error)
            }
            session.becameAgent()
            return (.bool(true), nil)
        case .daemonStatus:
            try RPCParams.none(request.params)
            return (await daemonStatus(), nil)
        }
    }

    /// The accuracy the client may see now, and how fixes are shown to it;
    /// the grant is kept by the session for answers given at once.
    /// - Throws: the refusal for any status but `authorized` (recorded in the audit log as `method`).
    func authorized(
        _ session: ClientSession, method: String
    ) async throws(RPCError)
        -> (accuracy: AccuracyAuthorization, presentation: FixPresentation)
    {
        let grant = await policy.grant(for: session.identity, connection: session.id)
        let state = grant.state
        metrics.judged(state.status)
        if let refusal = LocationError(refusing: state.status) {
            audit?.record(
                AuditRecord(method: method, state: state, client: session.identity, reason: refusal.reason))
            throw RPCError(refusal)
        }
        session.keep(grant)
        return (state.accuracy ?? .full, grant.presentation ?? .full)
    }

    /// `location.get`. The grant is judged when the request arrives and again
    /// when the answer is produced: a client that lost its authorization (or
    /// was reduced) while it waited for a fix gets the refusal (or the reduced
    /// fix), never what its old grant allowed (SPEC §3).
    private func locationGet(_ request: LocationRequest, session: ClientSession) async throws(RPCError) -> JSONValue {
        let method = RPCMethod.locationGet.rawValue
        var (accuracy, presentation) = try await authorized(session, method: method)
        let raw: LocationFix
        do {
            let serving = presentation.serving(request)
            // From the cache without an actor hop when it answers.
            if let cached = hub.cachedAnswer(serving) { raw = cached } else { raw = try await hub.location(serving) }
        } catch {
            audit?.record(
                AuditRecord(
                    method: method, client: session.identity, status: .authorized, accuracy: accuracy,
                    reason: error.reason))
            logger.info(
                "location refused",
                metadata: ["client": "\(session.identity.uid)/\(session.identity.pid)", "reason": "\(error.reason)"])
            throw RPCError(error)
        }
        if session.grant(valid: policy.grantGeneration) == nil {
            // The policy changed while the request waited: judge it again.
            (accuracy, presentation) = try await authorized(session, method: method)
        }
        let fix = presentation.apply(raw)
        audit?.record(answered(fix, accuracy: accuracy, session: session))
        return WireCoding.encode(fix)
    }

    /// Logs a `location.get` answered with `fix` and returns its audit record.
    private func answered(
        _ fix: LocationFix, accuracy: AccuracyAuthorization, session: ClientSession,
        at now: ContinuousClock.Instant = .now
    ) -> AuditRecord {
        // Debug, not info: this runs for every answer (up to ~100k/s), and a
        // formatted stderr line per answer cost more than the answer itself.
        // The audit trail of who got a position is the audit log.
        logger.debug(
            "location answered",
            metadata: [
                "client": "\(session.identity.uid)/\(session.identity.pid)", "source": "\(fix.source.rawValue)",
                "age": "\(fix.age(at: now))",
            ])
        return AuditRecord(
            method: RPCMethod.locationGet.rawValue, client: session.identity, status: .authorized, accuracy: accuracy,
            source: fix.source, fixAge: fix.age(at: now))
    }

    private func daemonStatus() async -> JSONValue {
        let sourceStatus = await hub.status()
        let uptime = (ContinuousClock.now - startedAt).seconds
        var status: [String: JSONValue] = [
            "version": .string(DaemonVersion.current),
            "uptime": .number((uptime * 1000).rounded() / 1000),
            "source": WireCoding.encode(sourceStatus),
            "clients": .number(Double(await registry.clients)),
            "watchers": .number(Double(registry.watchers)),
            "counters": metrics.snapshot,
        ]
        if let decisions = await policy.decisionsStatus() { status["decisions"] = decisions }
        if let station { status["station"] = station.status }
        return .object(status)
    }
}
