import PetSpotLocation

/// A ``LocationService`` that always answers its ``StaticPosition``.
///
/// Watchers get the position at once and then, with an `interval`, again
/// after each interval (with a `distanceFilter` only once: it never moves).
public struct StaticLocationService: LocationService, SourceStatusReporting {
    public let position: StaticPosition

    public init(position: StaticPosition) { self.position = position }

    public func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix {
        let fix = position.fix()
        if let minMode = request.minMode, fix.mode < minMode { throw .locationUnknown }
        return fix
    }

    public func updates(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error> {
        let position = self.position
        return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let ticker = Task {
                continuation.yield(position.fix())
                guard let interval = options.interval, interval > .zero, options.distanceFilter == nil else { return }
                while (try? await Task.sleep(for: interval)) != nil {
                    continuation.yield(position.fix())
                }
            }
            continuation.onTermination = { _ in ticker.cancel() }
        }
    }

    public func authorizationStatus() async throws(LocationError) -> AuthorizationState { .alwaysAuthorized }

    public func requestAuthorization(
        accuracy: AccuracyAuthorization
    ) async throws(LocationError)
        -> AuthorizationState
    {
        .alwaysAuthorized
    }

    public func sourceStatus() async -> SourceStatus {
        SourceStatus(kind: .static, connected: true, lastFixAge: 0)
    }
}
