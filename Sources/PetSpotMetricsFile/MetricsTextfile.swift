import Glibc
import Logging
import Metrics
import PetSpotLocation
import PetSpotPOSIX
import Prometheus
import ServiceLifecycle
import Synchronization

/// Writes a Prometheus registry's exposition to a file for node_exporter's
/// textfile collector (`[metrics] textfile`): no network listener on the
/// device; the node_exporter the fleet already scrapes carries the figures.
///
/// Every ``interval`` (and once at start, and once more when a graceful
/// shutdown begins) it runs ``refresh`` (which sets the gauges read from
/// state, such as the source's fix age) and replaces the file atomically
/// (``AtomicFile``: a scrape sees the old exposition or the new one, never
/// a torn one). It is not fsynced: the next interval writes it again, so a
/// power loss costs at most one interval's figures, and no write waits on
/// the disk (the daemon writes it from an event loop). The file is mode
/// 0644: node_exporter runs as its own user.
/// A failed write is logged and counted (`petspot_metrics_write_failures_total`),
/// and the next interval tries again; it never stops the program.
///
/// Each write also brings `petspot_context_switches_total` up to date: the
/// process's wake-ups (`getrusage`: voluntary and involuntary context
/// switches of all its threads), which a fleet watches on battery-powered
/// devices. Every figure's `# HELP` is its meaning in ``MetricCatalogue``.
public struct MetricsTextfile: Service, CustomStringConvertible {
    /// Where the exposition goes (a `.prom` file in the collector's directory).
    public let path: String
    /// Time between two writes.
    public let interval: Duration
    /// The registry whose exposition is written.
    public let registry: PrometheusCollectorRegistry
    /// Sets the gauges read from state, before each write.
    public let refresh: @Sendable () async -> Void
    /// Where the pause between two writes is timed (the daemon: its event loops).
    public let sleeper: Sleeper
    let logger: Logger
    private let failures: Prometheus.Counter
    private let contextSwitches: ContextSwitches

    /// Creates the writer; nothing is written until ``run()``.
    public init(
        path: String, interval: Duration, registry: PrometheusCollectorRegistry, logger: Logger,
        sleeper: Sleeper = .task, refresh: @escaping @Sendable () async -> Void = {}
    ) {
        self.sleeper = sleeper
        self.path = path
        self.interval = interval
        self.registry = registry
        self.refresh = refresh
        self.logger = logger
        failures = registry.makeCounter(
            descriptor: DocumentedMetricsFactory.descriptor("petspot_metrics_write_failures_total"))
        contextSwitches = ContextSwitches(
            registry.makeCounter(descriptor: DocumentedMetricsFactory.descriptor("petspot_context_switches_total")))
    }

    public var description: String { "MetricsTextfile(\(path))" }

    /// Makes a registry the process's swift-metrics backend and returns it:
    /// every counter and gauge created after this lands in its exposition.
    /// Call once, before anything creates a metric.
    public static func bootstrap() -> PrometheusCollectorRegistry {
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(DocumentedMetricsFactory(registry: registry))
        return registry
    }

    public func run() async throws {
        AtomicFile.removeLeftovers(for: path)
        await write()
        var next = ContinuousClock.now
        while true {
            next = next.advanced(by: interval)
            let deadline = next
            do {
                try await cancelWhenGracefulShutdown { try await sleeper.sleep(until: deadline) }
            } catch {
                break  // a graceful shutdown began (or the task was cancelled)
            }
            await write()
        }
        // The figures at the stop, so the file does not show a running state forever.
        await write()
    }

    /// Refreshes the gauges and replaces the file now.
    public func write() async {
        await refresh()
        contextSwitches.update()
        do throws(AtomicFile.Failure) {
            try AtomicFile.write(registry.emitToBuffer(), to: path, mode: 0o644, durable: false)
        } catch {
            failures.increment()
            logger.warning("metrics file not written", metadata: ["error": "\(error)"])
        }
    }
}

/// `petspot_context_switches_total`, brought up to the process's count at
/// each write (the counter only takes increments).
private final class ContextSwitches: Sendable {
    private let counter: Prometheus.Counter
    private let counted = Mutex<Int>(0)

    init(_ counter: Prometheus.Counter) { self.counter = counter }

    func update() {
        var usage = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &usage) == 0 else { return }
        let now = usage.ru_nvcsw + usage.ru_nivcsw
        let increment = counted.withLock { counted in
            defer { counted = max(counted, now) }
            return now - counted
        }
        if increment > 0 { counter.increment(by: Int64(increment)) }
    }
}
