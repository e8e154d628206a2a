import PetSpotFixHub
import PetSpotLocation
import ServiceLifecycle

/// The position source the daemon serves from: the ``PositionSource`` every
/// request and watch is answered from, and what feeds it (the gpsd reader
/// or the scenario player feeding a ``LiveFixHub``, the static position's
/// ticker feeding a ``FixedPosition``), run as a service of its own. The
/// daemon sees only the protocol, so it has one path for answers and one
/// for watches; which kind it gets is chosen in one place (the daemon
/// app's `SourceFactory`).
public struct DaemonSource: Sendable {
    /// Answers location requests and watches.
    public var hub: any PositionSource
    /// Feeds ``hub`` until the calling task is cancelled; returning early
    /// means it has nothing more to say (a finished scenario).
    public var feed: @Sendable () async -> Void

    /// A source: `hub`, fed by `feed`.
    public init(_ hub: any PositionSource, feed: @escaping @Sendable () async -> Void) {
        self.hub = hub
        self.feed = feed
    }

    /// A live source: `producer` feeding a new ``LiveFixHub`` whose waits
    /// (and the producer's) are timed by `sleeper`.
    public static func live(
        _ producer: any FixProducer, minimumMode: FixMode, fallback: Fallback? = nil, sleeper: Sleeper = .eventLoops()
    ) -> DaemonSource {
        let hub = LiveFixHub(kind: producer.kind, minimumMode: minimumMode, fallback: fallback, sleeper: sleeper)
        return DaemonSource(hub) { await producer.run(reportingTo: hub) }
    }
}

/// Runs a ``DaemonSource``'s feed for the daemon's lifetime.
public struct ProducerService: Service, CustomStringConvertible {
    let source: DaemonSource

    public init(_ source: DaemonSource) { self.source = source }

    public var description: String { "ProducerService(\(source.hub.kind.rawValue))" }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await source.feed()
            // A finished (non-looping) scenario keeps its last state: stay
            // alive until shutdown so the service group does not stop.
            try? await gracefulShutdown()
        }
    }
}
