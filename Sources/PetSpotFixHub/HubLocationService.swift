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
        hub.subscribe(options)
    }

    public func authorizationStatus() async throws(LocationError) -> AuthorizationState { .alwaysAuthorized }

    public func requestAuthorization(
        accuracy: AccuracyAuthorization
    ) async throws(LocationError)
        -> AuthorizationState
    {
        .alwaysAuthorized
    }

    public func sourceStatus() async -> SourceStatus { await hub.status() }
}
