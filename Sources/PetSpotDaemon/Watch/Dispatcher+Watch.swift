import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol

extension Dispatcher {
    /// `location.watch`: the subscription number, and the follow-up that
    /// starts the updates once that answer is written. Updates last until
    /// `location.unwatch`, the connection closing, the source failing, or
    /// the client losing authorization.
    ///
    /// Authorization is judged again whenever the policy changes (reload,
    /// reset: the only events that can take it from an authorized watcher),
    /// so a watcher that loses it gets `location.error` even while no fix
    /// arrives; its subscription is closed before that notification is sent.
    /// Between changes the granted presentation is read from a per-watcher
    /// snapshot, so a fix fans out to every watcher without a hop through
    /// the policy actor for each one.
    ///
    /// Updates flow through ``fanOut`` (one job per event loop per fix,
    /// straight to the connection's ``UpdateOutlet``), whatever the source.
    /// A watch holds no task of its own: the fan-out re-checks its
    /// authorization on policy changes, and closing the subscription removes
    /// it (``ClientSession/activate(_:start:onEnd:)``).
    func locationWatch(
        _ options: WatchOptions, session: ClientSession
    )
        async throws(RPCError) -> (JSONValue, (@Sendable () async -> Void)?)
    {
        let method = RPCMethod.locationWatch.rawValue
        guard let outlet = session.updateOutlet, fanOut.serves(outlet.eventLoop) else {
            throw .invalidRequest("location.watch needs a socket connection served by the daemon's event loops")
        }
        let (accuracy, presentation) = try authorized(session, method: method)
        guard let number = session.openSubscription() else {
            throw .invalidRequest("too many subscriptions on this connection")
        }
        audit?.record(
            AuditRecord(method: method, client: session.identity, status: .authorized, accuracy: accuracy))
        let policy = self.policy
        let registry = self.registry
        let audit = self.audit
        let subscription = JSONValue.number(Double(number))

        /// Ends the subscription with `error`, once (whoever closes it tells
        /// the client). The notice is queued on the connection, never waited
        /// for: a client that does not read must not hold up the re-checks
        /// of every watcher after it (they run one by one).
        let end: @Sendable (LocationError) -> Void = { error in
            guard session.closeSubscription(number) else { return }
            session.post?(
                RPCCodec.notification(
                    method: RPCMethod.locationError,
                    params: ["subscription": subscription, "error": RPCCodec.encode(RPCError(error))]))
        }
        /// How fixes are shown now; `nil` once authorization is gone.
        let granted = GrantedPresentation(presentation)
        /// Judges the client's authorization again and puts the answer in
        /// `granted`; the refusal (recorded) when it has lost it, else `nil`.
        let rejudge: @Sendable () async -> LocationError? = {
            let grant = policy.grant(for: session.identity, connection: session.id)
            let state = grant.state
            guard let refusal = LocationError(refusing: state.status) else {
                granted.set(grant.presentation ?? .full)
                return nil
            }
            granted.set(nil)
            audit?.record(
                AuditRecord(
                    method: AuditEvent.watchEnded.rawValue, state: state, client: session.identity,
                    reason: refusal.reason))
            return refusal
        }

        let fanOut = self.fanOut
        let key = WatchFanOut.Key(connection: session.id, subscription: number)
        /// Judges authorization again after a policy change.
        let recheck: @Sendable () async -> Void = {
            guard let error = await rejudge() else { return }
            // Out of the fan-out (undelivered line dropped) before `location.error`.
            fanOut.remove(key, outlet: outlet)
            end(error)
        }
        let followUp: @Sendable () async -> Void = {
            // The answer may have waited on a client that does not read,
            // across policy changes no re-check saw (the watch was not in
            // the fan-out yet): nothing is delivered until the grant is
            // judged again, after the watch joined the fan-out, so no
            // change can fall between the two.
            granted.set(nil)
            let started = session.activate(number) {
                registry.watchStarted()
                fanOut.add(key, options: options, presentation: granted, outlet: outlet, recheck: recheck)
            } onEnd: {
                fanOut.remove(key, outlet: outlet)
                registry.watchEnded()
            }
            guard started else { return }
            await recheck()
            fanOut.showCurrentFix(to: key, outlet: outlet)
        }
        return (["subscription": subscription], followUp)
    }
}
