import PetSpotFixHub
import PetSpotLocation
import ServiceLifecycle

/// The position source the daemon serves from: a service to ask, and
/// (for streaming sources) the producer that feeds it, run as a service of
/// its own.
public struct DaemonSource: Sendable {
    /// Answers location requests and watches.
    public var service: any LocationService & SourceStatusReporting
    /// Feeds ``service`` (gpsd reader, scenario player); `nil` for the static source.
    public var producer: (any FixProducer)?
    /// The hub between them, when there is one.
    public var hub: FixHub?

    public init(
        service: any LocationService & SourceStatusReporting, producer: (any FixProducer)? = nil, hub: FixHub? = nil
    ) {
        self.service = service
        self.producer = producer
        self.hub = hub
    }

    /// A streaming source: `producer` feeding a new hub.
    public static func streaming(
        _ producer: any FixProducer, minimumMode: FixMode, fallback: Fallback? = nil
    ) -> DaemonSource {
        let hub = FixHub(kind: producer.kind, minimumMode: minimumMode, fallback: fallback)
        return DaemonSource(service: HubLocationService(hub: hub), producer: producer, hub: hub)
    }
}

/// Runs a ``FixProducer`` for the daemon's lifetime.
public struct ProducerService: Service, CustomStringConvertible {
    let producer: any FixProducer
    let hub: FixHub

    public init(producer: any FixProducer, hub: FixHub) {
        self.producer = producer
        self.hub = hub
    }

    public var description: String { "ProducerService(\(producer.kind.rawValue))" }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await producer.run(reportingTo: hub)
            // A finished (non-looping) scenario keeps its last state: stay
            // alive until shutdown so the service group does not stop.
            try? await gracefulShutdown()
        }
    }
}
