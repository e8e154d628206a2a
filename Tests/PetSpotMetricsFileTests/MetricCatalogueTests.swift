import Foundation
import Logging
import Metrics
import PetSpotMetricsFile
import Prometheus
import Testing
import TestSupport

/// Every figure carries `# HELP` (its meaning in docs/OPERATIONS.md) and
/// `# TYPE`, so the exposition reads as Prometheus users expect (issue 28,
/// item 7).
@Suite struct MetricCatalogueTests {
    /// The rows of docs/OPERATIONS.md's figure tables: name (labels cut) → meaning.
    static func documentedMeanings() throws -> [(name: String, meaning: String)] {
        let operations = try String(contentsOfFile: RepositoryPaths.root + "/docs/OPERATIONS.md", encoding: .utf8)
        return operations.split(separator: "\n").compactMap { line in
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
                .map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 5, cells[1].hasPrefix("`petspot_"), ["counter", "gauge"].contains(cells[2]) else {
                return nil
            }
            let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`")).prefix { $0 != "{" }
            return (
                String(name),
                cells[3..<(cells.count - 1)].joined(separator: "|").replacingOccurrences(of: "`", with: "")
            )
        }
    }

    @Test func theHelpTextIsTheMeaningTheOperationsGuideGives() throws {
        let documented = try Self.documentedMeanings()
        #expect(documented.count >= 25, "the tables were not found: \(documented.count) rows")
        for (name, meaning) in documented where meaning != "as for the daemon" {
            #expect(MetricCatalogue.help[name] == meaning, "\(name): the catalogue and docs/OPERATIONS.md differ")
        }
        let names = Set(documented.map(\.name))
        for name in MetricCatalogue.help.keys {
            #expect(names.contains(name), "\(name) is not in docs/OPERATIONS.md \"The figures\"")
        }
    }

    /// Through swift-metrics, as the programs create them: each catalogued
    /// figure, labelled and not, comes out with `# HELP` and `# TYPE`, and
    /// promtool (when installed) finds nothing to say.
    @Test func everyCataloguedFigureIsWrittenWithHelpAndType() throws {
        let registry = PrometheusCollectorRegistry()
        let factory = DocumentedMetricsFactory(registry: registry)
        for name in MetricCatalogue.help.keys.sorted() {
            if name.hasSuffix("_total") {
                Counter(label: name, dimensions: [("kind", "a")], factory: factory).increment()
                Counter(label: name, dimensions: [("kind", "b")], factory: factory).increment()
            } else {
                Gauge(label: name, factory: factory).record(1)
            }
        }
        let text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        for (name, help) in MetricCatalogue.help {
            #expect(text.contains("# HELP \(name) \(help)\n"), "\(name) has no help:\n\(text)")
            #expect(text.contains("# TYPE \(name) \(name.hasSuffix("_total") ? "counter" : "gauge")\n"))
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool") else { return }
        let check = try ChildProcess.run("/usr/bin/promtool", ["check", "metrics"], input: text)
        #expect(check.status == 0 && check.stdout.isEmpty && check.stderr.isEmpty, "\(check)")
    }

    /// A name missing from the catalogue is still written (without help): a
    /// figure is never lost for want of a text, and the integration tests'
    /// promtool check catches it.
    @Test func anUncataloguedFigureIsWrittenWithoutHelp() {
        let registry = PrometheusCollectorRegistry()
        Counter(label: "petspot_not_catalogued_total", factory: DocumentedMetricsFactory(registry: registry))
            .increment(by: 2)
        let text = String(decoding: registry.emitToBuffer(), as: UTF8.self)
        #expect(text.contains("petspot_not_catalogued_total 2"))
        #expect(!text.contains("# HELP petspot_not_catalogued_total"))
    }

    /// The process's wake-ups are brought up to date at each write and only grow.
    @Test func theContextSwitchCountGrowsWithEachWrite() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("petspot.prom")
        let registry = PrometheusCollectorRegistry()
        let file = MetricsTextfile(
            path: path, interval: .seconds(60), registry: registry,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        func switches() throws -> Double {
            let text = try String(contentsOfFile: path, encoding: .utf8)
            let line = try #require(
                text.split(separator: "\n").first { $0.hasPrefix("petspot_context_switches_total ") })
            return try #require(Double(line.split(separator: " ")[1]))
        }
        await file.write()
        let first = try switches()
        // A thread that sleeps gives the CPU up: one voluntary switch at least.
        usleep(1000)
        await file.write()
        #expect(first > 0)
        #expect(try switches() > first)
        #expect(try String(contentsOfFile: path, encoding: .utf8).contains("# HELP petspot_context_switches_total"))
    }
}
