import Glibc
import Foundation
import Logging
import Metrics
import PetSpotMetricsFile
import Prometheus
import ServiceLifecycle
import Synchronization
import Testing
import TestSupport

/// The exposition file node_exporter's textfile collector reads: replaced
/// whole, readable by another user, written at start, every interval and
/// at the stop, and a failed write never stops anything.
@Suite(.timeLimit(.minutes(1))) struct MetricsTextfileTests {
    static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    static func contents(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func writesTheRegistryWholeWithMode0644AndNoLeftovers() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("petspot.prom")
        let registry = PrometheusCollectorRegistry()
        // Through swift-metrics, as the daemon's figures are.
        let factory = PrometheusMetricsFactory(registry: registry)
        let requests = Counter(
            label: "petspot_requests_total", dimensions: [("method", "location.get")], factory: factory)
        let age = Gauge(label: "petspot_source_fix_age_seconds", factory: factory)
        let refreshes = Mutex(0)
        let file = MetricsTextfile(path: path, interval: .seconds(60), registry: registry, logger: Self.logger) {
            refreshes.withLock { $0 += 1 }
            age.record(1.5)
        }
        requests.increment(by: 3)
        // A symlink planted where the file goes is replaced, its target left alone.
        let target = directory.file("target")
        try "precious\n".write(toFile: target, atomically: false, encoding: .utf8)
        #expect(symlink(target, path) == 0)
        await file.write()
        let text = try Self.contents(path)
        #expect(text.contains(#"petspot_requests_total{method="location.get"} 3"#), "\(text)")
        #expect(text.contains("petspot_source_fix_age_seconds 1.5"), "\(text)")
        #expect(text.contains("petspot_metrics_write_failures_total 0"), "\(text)")
        #expect(refreshes.withLock { $0 } == 1)
        var status = stat()
        #expect(lstat(path, &status) == 0)
        #expect(status.st_mode & S_IFMT == S_IFREG)
        #expect(status.st_mode & 0o777 == 0o644)
        #expect(try Self.contents(target) == "precious\n")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names == ["petspot.prom", "target"])
    }

    @Test func aFailedWriteIsCountedAndTheNextOneSucceeds() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let folder = directory.file("collector")
        let path = folder + "/petspot.prom"
        let registry = PrometheusCollectorRegistry()
        let file = MetricsTextfile(path: path, interval: .seconds(60), registry: registry, logger: Self.logger)
        await file.write()  // the collector's folder does not exist yet
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(mkdir(folder, 0o755) == 0)
        await file.write()
        #expect(try Self.contents(path).contains("petspot_metrics_write_failures_total 1"))
    }

    @Test func writesAtStartAndOnceMoreAtTheStop() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("petspot.prom")
        // A leftover of a writer killed mid-write goes at start.
        let leftover = directory.file(".petspot.prom.tmp-1-2")
        try "torn".write(toFile: leftover, atomically: false, encoding: .utf8)
        let registry = PrometheusCollectorRegistry()
        let refreshes = Gauge(label: "refreshes", factory: PrometheusMetricsFactory(registry: registry))
        let count = Mutex(0.0)
        let (written, signal) = AsyncStream<Void>.makeStream()
        let file = MetricsTextfile(path: path, interval: .seconds(3600), registry: registry, logger: Self.logger) {
            refreshes.record(
                count.withLock {
                    $0 += 1
                    return $0
                })
            signal.yield()
        }
        let group = ServiceGroup(services: [file], logger: Self.logger)
        let running = Task { try await group.run() }
        var refreshed = written.makeAsyncIterator()
        _ = await refreshed.next()  // the first write is under way
        await group.triggerGracefulShutdown()
        try await running.value
        // The interval is an hour: the second write is the one at the stop.
        let text = try Self.contents(path)
        #expect(text.contains("refreshes 2.0"), "\(text)")
        #expect(!FileManager.default.fileExists(atPath: leftover))
    }
}
