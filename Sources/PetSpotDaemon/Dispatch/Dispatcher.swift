import Logging
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
/// position source, an access policy and the client registry. Transport-free,
/// so tests drive it directly.
public struct Dispatcher: Sendable {
    public let source: any LocationService & SourceStatusReporting
    public let policy: any AccessPolicy
    public let registry: ClientRegistry
    public let startedAt: ContinuousClock.Instant
    public let logger: Logger

    public init(
        source: any LocationService & SourceStatusReporting,
        policy: any AccessPolicy,
        registry: ClientRegistry,
        logger: Logger,
        startedAt: ContinuousClock.Instant = .now
    ) {
        self.source = source
        self.policy = policy
        self.registry = registry
        self.logger = logger
        self.startedAt = startedAt
    }

    /// Handles one decoded line.
    public func handle(_ inbound: RPCInbound, session: ClientSession, send: @escaping MessageSink) async
        -> DispatchOutcome
    {
        switch inbound {
        case .failure(let error):
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

    /// Handles one message of a line.
    public func handle(_ parsed: RPCParsed, session: ClientSession, send: @escaping MessageSink) async
        -> DispatchOutcome
    {
        switch parsed {
        case .invalid(let id, let error):
            return DispatchOutcome(reply: RPCCodec.response(id: id, error: error))
        case .request(let request):
            do {
                let (result, followUp) = try await call(request, session: session, send: send)
                guard let id = request.id else { return DispatchOutcome(reply: nil, followUp: followUp) }
                return DispatchOutcome(reply: RPCCodec.response(id: id, result: result), followUp: followUp)
            } catch {
                guard let id = request.id else { return DispatchOutcome(reply: nil) }
                return DispatchOutcome(reply: RPCCodec.response(id: id, error: error))
            }
        }
    }

    private func call(_ request: RPCRequest, session: ClientSession, send: @escaping MessageSink)
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
        case .authorizationReset, .agentRegister:
            throw RPCError(LocationError.forbidden)
        case .daemonStatus:
            try RPCParams.none(request.params)
            return (await daemonStatus(), nil)
        }
    }

    private func authorizedAccuracy(_ session: ClientSession) async throws(RPCError) -> AccuracyAuthorization {
        let state = await policy.status(for: session.identity, connection: session.id)
        if let refusal = LocationError(refusing: state.status) { throw RPCError(refusal) }
        return state.accuracy ?? .full
    }

    private func locationGet(_ request: LocationRequest, session: ClientSession) async throws(RPCError) -> JSONValue {
        let accuracy = try await authorizedAccuracy(session)
        do {
            let fix = policy.present(try await source.location(request), accuracy: accuracy)
            // Debug, not info: this runs for every answer (up to ~100k/s), and a
            // formatted stderr line per answer cost more than the answer itself.
            // The audit trail of who got a position belongs to the audit log.
            logger.debug(
                "location answered",
                metadata: [
                    "client": "\(session.identity.uid)/\(session.identity.pid)", "source": "\(fix.source.rawValue)",
                    "age": "\(fix.age())",
                ])
            return WireCoding.encode(fix)
        } catch {
            logger.info(
                "location refused",
                metadata: ["client": "\(session.identity.uid)/\(session.identity.pid)", "reason": "\(error.reason)"])
            throw RPCError(error)
        }
    }

    private func locationWatch(_ options: WatchOptions, session: ClientSession, send: @escaping MessageSink)
        async throws(RPCError) -> (JSONValue, (@Sendable () async -> Void)?)
    {
        let accuracy = try await authorizedAccuracy(session)
        guard let (number, stop) = await session.openSubscription() else {
            throw .invalidRequest("too many subscriptions on this connection")
        }
        let source = self.source
        let policy = self.policy
        let registry = self.registry
        let followUp: @Sendable () async -> Void = {
            await registry.watchStarted()
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in stop {}
                }
                group.addTask {
                    do {
                        for try await fix in source.updates(options) {
                            let update = policy.present(fix, accuracy: accuracy)
                            try await send(
                                RPCCodec.notification(
                                    method: RPCMethod.locationUpdate,
                                    params: ["subscription": .number(Double(number)), "fix": WireCoding.encode(update)]
                                ))
                        }
                    } catch let error as LocationError {
                        try? await send(
                            RPCCodec.notification(
                                method: RPCMethod.locationError,
                                params: ["subscription": .number(Double(number)), "error": RPCCodec.encode(RPCError(error))]
                            ))
                    } catch {
                        // The connection is gone; nothing to tell.
                    }
                }
                await group.next()
                group.cancelAll()
            }
            await session.closeSubscription(number)
            await registry.watchEnded()
        }
        return (["subscription": .number(Double(number))], followUp)
    }

    private func daemonStatus() async -> JSONValue {
        let sourceStatus = await source.sourceStatus()
        let uptime = (ContinuousClock.now - startedAt).seconds
        return [
            "version": .string(DaemonVersion.current),
            "uptime": .number((uptime * 1000).rounded() / 1000),
            "source": WireCoding.encode(sourceStatus),
            "clients": .number(Double(await registry.clients)),
            "watchers": .number(Double(await registry.watchers)),
        ]
    }
}
