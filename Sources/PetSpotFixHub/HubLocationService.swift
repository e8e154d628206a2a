import PetSpotLocation

/// A ``LocationService`` over a ``FixHub``: what the daemon's sources look
/// like from above. Authorization is always granted here: permission is the
/// daemon's policy, not the source's.
public struct HubLocationService: LocationService, SourceStatusReporting {
    /// The hub it reads from.
    public let hub: FixHub

    public init(hub: FixHub) { self.hub = hub }

    public func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix {
        if let cached = hub.cachedAnswer(request) { return cached }
        return try await hub.location(request)
    }

    public func updates(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error> {
        let hub = self.hub
        // Subscribing is actor-isolated; bridge it through a relay stream so
        // this method can stay synchronous as the protocol asks.
        return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let relay = Task {
                let stream = await hub.subscribe(options)
                do {
                    for try await fix in stream { continuation.yield(fix) }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in relay.cancel() }
        }
    }

    public func authorizationStatus() async throws(LocationError) -> AuthorizationState { .alwaysAuthorized }

    public func requestAuthorization(accuracy: AccuracyAuthorization) async throws(LocationError)
        -> AuthorizationState
    {
        .alwaysAuthorized
    }

    public func sourceStatus() async -> SourceStatus { await hub.status() }
}
