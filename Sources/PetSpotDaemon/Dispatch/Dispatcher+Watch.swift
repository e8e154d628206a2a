import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import Synchronization

extension Dispatcher {
    /// `location.watch`: the subscription number, and the follow-up that
    /// streams updates until `location.unwatch`, the connection closing, the
    /// source failing, or the client losing authorization.
    ///
    /// Authorization is judged again whenever the policy changes (reload,
    /// reset: the only events that can take it from an authorized watcher),
    /// so a watcher that loses it gets `location.error` even while no fix
    /// arrives; its subscription is closed before that notification is sent.
    /// Between changes the granted accuracy is read from a per-watcher
    /// snapshot, so a fix fans out to every watcher without a hop through
    /// the policy actor for each one.
    func locationWatch(_ options: WatchOptions, session: ClientSession, send: @escaping MessageSink)
        async throws(RPCError) -> (JSONValue, (@Sendable () async -> Void)?)
    {
        let method = RPCMethod.locationWatch.rawValue
        let accuracy = try await authorizedAccuracy(session, method: method)
        guard let (number, stop) = await session.openSubscription() else {
            throw .invalidRequest("too many subscriptions on this connection")
        }
        await audit?.record(
            AuditRecord(method: method, client: session.identity, status: .authorized, accuracy: accuracy))
        let changes = await policy.authorizationChanges()
        let source = self.source
        let policy = self.policy
        let registry = self.registry
        let audit = self.audit
        let subscription = JSONValue.number(Double(number))

        /// Ends the subscription with `error`, once (whoever closes it tells the client).
        let end: @Sendable (LocationError) async -> Void = { error in
            guard await session.closeSubscription(number) else { return }
            try? await send(
                RPCCodec.notification(
                    method: RPCMethod.locationError,
                    params: ["subscription": subscription, "error": RPCCodec.encode(RPCError(error))]))
        }
        /// The refusal for the client's authorization now, recorded; `nil` while authorized.
        let refusal: @Sendable () async -> (LocationError?, AccuracyAuthorization) = {
            let state = await policy.status(for: session.identity, connection: session.id)
            guard let refusal = LocationError(refusing: state.status) else { return (nil, state.accuracy ?? accuracy) }
            await audit?.record(
                AuditRecord(
                    method: "location.watchEnded", state: state, client: session.identity, reason: refusal.reason))
            return (refusal, accuracy)
        }

        /// The accuracy granted now; `nil` once authorization is gone.
        let granted = GrantedAccuracy(accuracy)

        let followUp: @Sendable () async -> Void = {
            await registry.watchStarted()
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    for await _ in stop {}
                }
                group.addTask {
                    for await _ in changes {
                        let (error, current) = await refusal()
                        granted.set(error == nil ? current : nil)
                        if let error {
                            await end(error)
                            return
                        }
                    }
                }
                group.addTask {
                    do {
                        for try await fix in source.updates(options) {
                            guard let current = granted.value else { return }
                            let update = current == .full ? fix : await policy.present(fix, accuracy: current)
                            try await send(
                                RPCCodec.notification(
                                    method: RPCMethod.locationUpdate,
                                    params: ["subscription": subscription, "fix": WireCoding.encode(update)]))
                        }
                    } catch let error as LocationError {
                        await end(error)
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
        return (["subscription": subscription], followUp)
    }
}

/// One watcher's granted accuracy, shared by its update loop (reads) and
/// its policy-change loop (writes); `nil` once authorization is gone.
final class GrantedAccuracy: Sendable {
    private let state: Mutex<AccuracyAuthorization?>

    init(_ accuracy: AccuracyAuthorization) { state = Mutex(accuracy) }

    var value: AccuracyAuthorization? { state.withLock { $0 } }

    func set(_ accuracy: AccuracyAuthorization?) { state.withLock { $0 = accuracy } }
}
