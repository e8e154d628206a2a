import CoreMetrics
import Prometheus

/// The swift-metrics backend the programs bootstrap: swift-prometheus'
/// registry, with each figure's `# HELP` taken from ``MetricCatalogue``.
///
/// swift-prometheus' own `PrometheusMetricsFactory` registers every figure
/// with an empty help text (so `promtool check metrics` reports "no help
/// text" on each), and its registry stops the process when one name is
/// registered with two different texts; here a name always gets the one
/// text of the catalogue. Removal is the stock factory's.
public struct DocumentedMetricsFactory: CoreMetrics.MetricsFactory {
    /// Where the figures are registered.
    public let registry: PrometheusCollectorRegistry
    private let stock: PrometheusMetricsFactory

    /// Creates the factory over `registry`.
    public init(registry: PrometheusCollectorRegistry) {
        self.registry = registry
        self.stock = PrometheusMetricsFactory(registry: registry)
    }

    /// The registry's descriptor for `label`: the full name, and the
    /// catalogue's help ("" for a name missing there).
    static func descriptor(_ label: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: label, unitName: "", helpText: MetricCatalogue.help[label] ?? "")
    }

    public func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(descriptor: Self.descriptor(label), labels: dimensions)
    }

    public func makeFloatingPointCounter(
        label: String, dimensions: [(String, String)]
    )
        -> any FloatingPointCounterHandler
    {
        registry.makeCounter(descriptor: Self.descriptor(label), labels: dimensions)
    }

    public func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(descriptor: Self.descriptor(label), labels: dimensions) }
        return registry.makeValueHistogram(
            descriptor: Self.descriptor(label), labels: dimensions, buckets: stock.defaultValueHistogramBuckets)
    }

    public func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(descriptor: Self.descriptor(label), labels: dimensions)
    }

    public func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(
            descriptor: Self.descriptor(label), labels: dimensions, buckets: stock.defaultDurationHistogramBuckets)
    }

    public func destroyCounter(_ handler: any CounterHandler) { stock.destroyCounter(handler) }
    public func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        stock.destroyFloatingPointCounter(handler)
    }
    public func destroyRecorder(_ handler: any RecorderHandler) { stock.destroyRecorder(handler) }
    public func destroyMeter(_ handler: any MeterHandler) { stock.destroyMeter(handler) }
    public func destroyTimer(_ handler: any TimerHandler) { stock.destroyTimer(handler) }
}
