import PetSpotFixHub
import PetSpotLocation
import ServiceLifecycle

/// The position source the daemon serves from: the hub every request and
/// watch is answered from, and the producer that feeds it (the gpsd reader,
/// the scenario player, the static position's ticker), run as a service of
/// its own. Every kind of source has this one shape, so the daemon has one
/// path for answers and one for watches.
public struct DaemonSource: Sendable {
    /// Feeds ``hub``.
    public var producer: any FixProducer
    /// Answers location requests and watches.
    public var hub: FixHub

    public init(producer: any FixProducer, hub: FixHub) {
        self.producer = producer
        self.hub = hub
    }

    /// A streaming source: `producer` feeding a new hub.
    public static func streaming(
        _ producer: any FixProducer, minimumMode: FixMode, fallback: Fallback? = nil
    ) -> DaemonSource {
        DaemonSource(
            producer: producer, hub: FixHub(kind: producer.kind, minimumMode: minimumMode, fallback: fallback))
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
