import Logging
import Metrics
import PetSpotFixHub
import PetSpotJSON
import PetSpotLinux
import PetSpotLocation
import PetSpotPOSIX
import PetSpotProtocol
import Synchronization

/// Queues one message on a client's connection, never waiting for the
/// client to read it (a message to a connection that closed is dropped).
public typealias MessageSink = @Sendable (JSONValue) -> Void

/// Answers JSON-RPC requests for one daemon: the methods of SPEC §5 over a
/// position source's hub, an access policy and the client registry.
/// Transport-free (watch updates go to the connection's ``UpdateOutlet``),
/// so tests drive it directly.
public struct Dispatcher: Sendable {
    /// Where positions come from (a live hub or a fixed position, behind one protocol).
    public let hub: any PositionSource
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
    /// Told of every line a client sends: the pages serving touched are
    /// given back once requests stop (``QuietPageRelease``).
    public let pages: QuietPageRelease?

    public init(
        hub: any PositionSource,
        policy: any AccessPolicy,
        registry: ClientRegistry,
        logger: Logger,
        fanOut: WatchFanOut,
        audit: AuditLog? = nil,
        station: StationWatch? = nil,
        pages: QuietPageRelease? = nil,
        metrics: any MetricsFactory = MetricsSystem.factory,
        startedAt: ContinuousClock.Instant = .now
    ) {
        self.fanOut = fanOut
        self.station = station
        self.pages = pages
        self.metrics = DaemonMetrics(factory: metrics)
        self.hub = hub
        self.policy = policy
        self.registry = registry
        self.logger = logger
        self.audit = audit
        self.startedAt = startedAt
    }

    /// Answers one line a client sent: at once when nothing has to wait
    /// (an authorized `location.get` whose fix is at hand, a line that does
    /// not parse), else later, from a task the connection owns.
    ///
    /// The line is decoded once (``InboundLine``). `previous`, the answer
    /// this connection was given last, is reused when its fix answers again:
    /// a fix is serialized once, not per request. An answer given at once
    /// costs no task, actor hop or async write (docs/PERFORMANCE.md).
    public func answer(
        _ line: some Collection<UInt8>, session: ClientSession, reusing previous: GetAnswer? = nil
    ) -> Answer {
        pages?.noteActivity()
        switch InboundLine.decode(line) {
        case .locationGet(let get):
            return locationGetAtOnce(get, session: session, reusing: previous)
        case .other(.failure(let error)):
            metrics.error(error)
            return .now(Reply(RPCCodec.response(id: .null, error: error)))
        case .other(.single(.invalid(let id, let error))):
            metrics.error(error)
            return .now(Reply(RPCCodec.response(id: id, error: error)))
        case .other(let inbound):
            return .later { await self.handle(inbound, session: session) }
        }
    }

    /// The same answer the long way, for callers without a connection
    /// handler (tests, the request fuzz target): the line as
    /// ``answer(_:session:reusing:)`` answers it, waited for.
    public func reply(to line: some Collection<UInt8>, session: ClientSession) async -> Reply {
        switch answer(line, session: session) {
        case .now(let reply): reply
        case .later(let work): await work()
        }
    }

    /// Answers a general line (not a well-formed `location.get`).
    func handle(_ inbound: RPCInbound, session: ClientSession) async -> Reply {
        switch inbound {
        case .failure(let error):
            metrics.error(error)
            return Reply(RPCCodec.response(id: .null, error: error))
        case .single(let parsed):
            return await handle(parsed, session: session)
        case .batch(let elements):
            var replies: [JSONValue] = []
            var starts: [@Sendable () async -> Void] = []
            for element in elements {
                let reply = await handle(element, session: session)
                if case .message(let message)? = reply.body { replies.append(message) }
                if let start = reply.then { starts.append(start) }
            }
            var combined: (@Sendable () async -> Void)?
            if !starts.isEmpty {
                let all = starts
                combined = { @Sendable in for start in all { await start() } }
            }
            return replies.isEmpty ? .nothing(then: combined) : Reply(.array(replies), then: combined)
        }
    }

    /// Answers one message of a general line.
    func handle(_ parsed: RPCParsed, session: ClientSession) async -> Reply {
        switch parsed {
        case .invalid(let id, let error):
            metrics.error(error)
            return Reply(RPCCodec.response(id: id, error: error))
        case .response(let response):
            // Responses answer what the daemon asked (agent.prompt); they get no answer.
            await policy.received(response, connection: session.id)
            return .nothing()
        case .request(let request):
            do {
                let (result, then) = try await call(request, session: session)
                metrics.answered(request.method)
                guard let id = request.id else { return .nothing(then: then) }
                return Reply(RPCCodec.response(id: id, result: result), then: then)
            } catch {
                metrics.failed(request.method, error)
                guard let id = request.id else { return .nothing() }
                return Reply(RPCCodec.response(id: id, error: error))
            }
        }
    }

    private func call(
        _ request: RPCRequest, session: ClientSession
    )
        async throws(RPCError) -> (JSONValue, (@Sendable () async -> Void)?)
    {
        guard let method = RPCMethod(rawValue: request.method) else { throw .methodNotFound(request.method) }
        switch method {
        case .locationGet:
            // A location.get with an id and valid params never comes here
            // (``InboundLine``): a notification, or params to refuse.
            let options = try RPCParams.locationGet(request.params)
            let (fix, accuracy) = try await locationFix(options, session: session, granted: nil)
            let now = ContinuousClock.now
            audit?.record(answered(fix, accuracy: accuracy, session: session, at: now))
            return (WireCoding.encode(fix, at: now), nil)
        case .locationWatch:
            let options = try RPCParams.locationWatch(request.params)
            return try await locationWatch(options, session: session)
        case .locationUnwatch:
            let number = try RPCParams.locationUnwatch(request.params)
            guard session.closeSubscription(number) else {
                throw .invalidParams("params.subscription: no subscription \(number) on this connection")
            }
            return (.bool(true), nil)
        case .authorizationStatus:
            try RPCParams.none(request.params)
            return (WireCoding.encode(policy.grant(for: session.identity, connection: session.id).state), nil)
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
            // Messages to the agent are queued on its connection, never awaited.
            let post = session.post
            let toAgent: MessageSink = { message in post?(message) }
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

    /// What an authorized client may see: the accuracy granted, and how
    /// fixes are shown to it.
    typealias Granted = (accuracy: AccuracyAuthorization, presentation: FixPresentation)

    /// The accuracy the client may see now, and how fixes are shown to it:
    /// the policy's grant, judged now (synchronous, one lock).
    /// - Throws: the refusal for any status but `authorized` (recorded in the audit log as `method`).
    func authorized(_ session: ClientSession, method: String) throws(RPCError) -> Granted {
        try authorized(policy.grant(for: session.identity, connection: session.id), session: session, method: method)
    }

    /// `grant` judged for `session`: counted, and a refusal recorded in the
    /// audit log as `method`.
    /// - Throws: the refusal for any status but `authorized`.
    private func authorized(_ grant: AccessGrant, session: ClientSession, method: String) throws(RPCError) -> Granted {
        let state = grant.state
        metrics.judged(state.status)
        if let refusal = LocationError(refusing: state.status) {
            audit?.record(
                AuditRecord(method: method, state: state, client: session.identity, reason: refusal.reason))
            throw RPCError(refusal)
        }
        return (state.accuracy ?? .full, grant.presentation ?? .full)
    }

    /// `location.get` answered at once, on the caller's thread, when nothing
    /// has to wait: the policy's grant, judged for this request
    /// (``AuthorizationPort/grant(for:connection:)``, one lock), refuses the
    /// client, or authorizes it and the source has a fix that answers it
    /// now. So even a client's first request is answered here, and a change
    /// of policy or decision is seen by the very next one. The answer, audit
    /// record and counters are those the long way
    /// (``locationGet(_:session:granted:)``) gives; only a request that waits
    /// for a fix goes that way (`Answer.later`), with the grant judged here.
    /// It returns the connection's ``Answer`` itself: the reply is not copied
    /// through another enum (its fix holds a `ContinuousClock.Instant`, whose
    /// layout is known only at run time, so every copy is a runtime call).
    func locationGetAtOnce(_ get: LocationGetLine, session: ClientSession, reusing previous: GetAnswer?) -> Answer {
        let now = ContinuousClock.now
        let method = RPCMethod.locationGet.rawValue
        let granted: Granted
        do {
            granted = try authorized(
                policy.grant(for: session.identity, connection: session.id), session: session, method: method)
        } catch {
            metrics.failed(method, error)
            return .now(Reply(RPCCodec.response(id: get.id, error: error)))
        }
        guard let fix = hub.cachedAnswer(granted.presentation.serving(get.request), at: now) else {
            return .later { await self.locationGet(get, session: session, granted: granted) }
        }
        metrics.answeredLocationGet()
        let shown = granted.presentation.apply(fix)
        let answer = previous.flatMap { $0.fix == shown ? $0 : nil } ?? GetAnswer(fix: shown)
        return .now(
            Reply(
                location: answer, id: get.id, at: now,
                record: auditLine(shown, accuracy: granted.accuracy, session: session, at: now)))
    }

    /// `location.get` the long way. The grant is judged when the request
    /// arrives (or was, by ``locationGetAtOnce(_:session:reusing:)``:
    /// `granted`) and again when the answer is produced after a wait: a
    /// client that lost its authorization (or was reduced) while it waited
    /// for a fix gets the refusal (or the reduced fix), never what its old
    /// grant allowed (SPEC §3).
    func locationGet(_ get: LocationGetLine, session: ClientSession, granted: Granted? = nil) async -> Reply {
        let method = RPCMethod.locationGet.rawValue
        do {
            let (fix, accuracy) = try await locationFix(get.request, session: session, granted: granted)
            metrics.answeredLocationGet()
            let now = ContinuousClock.now
            return Reply(
                location: GetAnswer(fix: fix), id: get.id, at: now,
                record: auditLine(fix, accuracy: accuracy, session: session, at: now))
        } catch {
            metrics.failed(method, error)
            return Reply(RPCCodec.response(id: get.id, error: error))
        }
    }

    /// The fix `session` may be shown for `request`, and the accuracy it was granted.
    /// - Throws: the refusal (recorded).
    private func locationFix(
        _ request: LocationRequest, session: ClientSession, granted: Granted?
    ) async throws(RPCError) -> (LocationFix, AccuracyAuthorization) {
        let method = RPCMethod.locationGet.rawValue
        var (accuracy, presentation): Granted
        if let granted {
            (accuracy, presentation) = granted
        } else {
            (accuracy, presentation) = try authorized(session, method: method)
        }
        let raw: LocationFix
        var waited = false
        do {
            let serving = presentation.serving(request)
            // From the cache without an actor hop when it answers.
            if let cached = hub.cachedAnswer(serving) {
                raw = cached
            } else {
                waited = true
                raw = try await hub.location(serving)
            }
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
        if waited {
            // The policy may have changed while the request waited: judge it
            // again (synchronous: one lock, no hop).
            (accuracy, presentation) = try authorized(session, method: method)
        }
        return (presentation.apply(raw), accuracy)
    }

    /// The audit record's line of a `location.get` answered with `fix`;
    /// `nil` without an audit log.
    private func auditLine(
        _ fix: LocationFix, accuracy: AccuracyAuthorization, session: ClientSession, at now: ContinuousClock.Instant
    ) -> [UInt8]? {
        guard audit != nil else { return nil }
        return answered(fix, accuracy: accuracy, session: session, at: now).jsonLine(client: session.auditClient)
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

    /// `daemon.status` `memory`: the allocator's bytes in use and the live
    /// per-connection objects (``ConnectionCensus``), so a leak per
    /// connection or per request shows from outside the process.
    static var memoryStatus: JSONValue {
        var memory: [String: JSONValue] = [
            "connectionHandlers": .number(Double(ConnectionCensus.handlers.load(ordering: .relaxed))),
            "clientSessions": .number(Double(ConnectionCensus.sessions.load(ordering: .relaxed))),
        ]
        if let heap = HeapUsage.bytesInUse { memory["heapInUse"] = .number(Double(heap)) }
        return .object(memory)
    }

    private func daemonStatus() async -> JSONValue {
        let sourceStatus = await hub.status()
        let uptime = (ContinuousClock.now - startedAt).seconds
        var status: [String: JSONValue] = [
            "version": .string(DaemonVersion.current),
            "uptime": .number((uptime * 1000).rounded() / 1000),
            "source": WireCoding.encode(sourceStatus),
            "clients": .number(Double(registry.clients)),
            "watchers": .number(Double(registry.watchers)),
            "counters": metrics.snapshot,
            "memory": Self.memoryStatus,
        ]
        if let decisions = policy.decisionsStatus() { status["decisions"] = decisions }
        if let station { status["station"] = station.status }
        return .object(status)
    }
}
