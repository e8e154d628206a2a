import Logging
import PetSpotFixHub
import PetSpotGpsd
import PetSpotLocation
import PetSpotSettings

/// The tests' gpsd source as a ``LocationService`` (the daemon assembles the
/// same from `DaemonSource.live`): a ``LiveFixHub`` fed by a
/// ``GpsdFixProducer``, with the optional `source.fallback`.
///
/// The daemon creates it, runs ``run()`` in its service group, and serves
/// requests through the `LocationService` methods:
///
/// ```swift
/// let gpsd = GpsdLocationService(settings: settings, minimumMode: .twoD, fallback: staticFallback)
/// group.addTask { await gpsd.run() }     // until cancelled
/// let fix = try await gpsd.location(LocationRequest())
/// ```
///
/// With a fallback, requests get the fallback's fix (marked with its own
/// source kind) whenever gpsd is down or has no fix within the request's
/// `maxAge`; gpsd's fixes answer again as soon as it has one.
struct GpsdLocationService: LocationService, SourceStatusReporting {
    /// The engine holding the newest fix, waiters, observers and counters.
    let hub: LiveFixHub
    /// The gpsd reader that feeds ``hub``.
    let producer: GpsdFixProducer

    /// Creates the source; nothing connects until ``run()``.
    /// - Parameters:
    ///   - settings: `[source.gpsd]`.
    ///   - initialReconnectDelay: the first reconnect delay (the producer's default: 250 ms).
    ///   - minimumMode: `source.min_mode`; lower fixes are dropped and counted.
    ///   - fallback: `source.fallback`, e.g. the static position.
    ///   - logger: for connection changes.
    init(
        settings: GpsdSettings = GpsdSettings(),
        initialReconnectDelay: Duration = .milliseconds(250),
        minimumMode: FixMode = .twoD,
        fallback: Fallback? = nil,
        logger: Logger = Logger(label: "petspot.gpsd")
    ) {
        let hub = LiveFixHub(kind: .gpsd, minimumMode: minimumMode, fallback: fallback)
        self.hub = hub
        self.producer = GpsdFixProducer(
            settings: settings, initialReconnectDelay: initialReconnectDelay, logger: logger)
    }

    /// Reads gpsd (reconnecting as needed) until the calling task is cancelled.
    func run() async {
        await producer.run(reportingTo: hub)
    }

    func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix {
        if let cached = hub.cachedAnswer(request) { return cached }
        return try await hub.location(request)
    }

    func updates(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error> {
        hub.updates(options)
    }

    func authorizationStatus() async throws(LocationError) -> AuthorizationState {
        .alwaysAuthorized
    }

    func requestAuthorization(
        accuracy: AccuracyAuthorization
    ) async throws(LocationError)
        -> AuthorizationState
    {
        .alwaysAuthorized
    }

    func sourceStatus() async -> SourceStatus { hub.status() }
}
