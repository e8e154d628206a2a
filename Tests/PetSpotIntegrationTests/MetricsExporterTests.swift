#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
import TestSupport

/// The fleet path end to end (issue 18): the daemon writes its figures to a
/// `.prom` file, Debian's real `prometheus-node-exporter` serves them with
/// its textfile collector over loopback, and a real `prometheus` scrapes
/// that and answers a query. No listener of the daemon's own.
@Suite("metrics through node_exporter and prometheus", .serialized)
struct MetricsExporterTests {
    static let nodeExporter = "/usr/bin/prometheus-node-exporter"
    static let prometheus = "/usr/bin/prometheus"

    /// Three fixes, one with an impossible latitude (rejected), an outage
    /// and the source back (one reconnection), one more fix, then quiet.
    static let scenario = """
        {"steps": [
          {"fix": {"latitude": 47.3769, "longitude": 8.5417, "horizontalAccuracy": 5, "mode": 2}},
          {"fix": {"latitude": 47.3770, "longitude": 8.5417, "horizontalAccuracy": 5, "mode": 2}},
          {"fix": {"latitude": 95.0, "longitude": 8.5417, "horizontalAccuracy": 5, "mode": 2}},
          {"fix": {"latitude": 47.3771, "longitude": 8.5417, "horizontalAccuracy": 5, "mode": 2}},
          {"outage": 0.3},
          {"fix": {"latitude": 47.3772, "longitude": 8.5417, "horizontalAccuracy": 5, "mode": 2}},
          {"noFix": 3600}
        ]}
        """

    /// GET over loopback (python3's urllib: no HTTP client of our own); the body, or `nil`.
    static func get(_ url: String) -> String? {
        let script =
            "import sys, urllib.request\nsys.stdout.write(urllib.request.urlopen(sys.argv[1], timeout=5).read().decode())"
        guard let run = try? ChildProcess.run("/usr/bin/python3", ["-c", script, url], timeout: 15), run.status == 0
        else { return nil }
        return run.stdout
    }

    /// Polls `url` until `accept` takes its body (another process's state has no signal to wait on).
    static func poll(_ url: String, within seconds: Double, until accept: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        var last: String?
        while Date() < deadline {
            last = get(url)
            if let last, accept(last) { return last }
            usleep(200_000)
        }
        return last.flatMap { accept($0) ? $0 : nil }
    }

    /// The value of the sample `name{labels}` (exactly as exposed), if present.
    static func sample(_ exposition: String, _ series: String) -> Double? {
        for line in exposition.split(separator: "\n") where line.hasPrefix(series + " ") {
            return Double(line.dropFirst(series.count + 1))
        }
        return nil
    }

    /// A daemon playing ``scenario`` with its metrics file in its own folder (the collector's), under a policy that refuses root.
    static func startDaemon() throws -> (DaemonProcess, collector: String) {
        let daemon = try DaemonProcess(
            source: Fixtures.simulated("scenario.json"),
            policy: """
                [policy]
                default = "denied"

                [metrics]
                textfile = "{dir}/petspot.prom"
                interval = 1
                """,
            files: ["scenario.json": scenario])
        return (daemon, daemon.directory.path)
    }

    static func startExporter(collector: String) throws -> (ChildProcess, port: Int) {
        let port = GpsdDaemonTests.freePort()
        let exporter = try ChildProcess(
            nodeExporter,
            [
                "--web.listen-address=127.0.0.1:\(port)", "--collector.disable-defaults", "--collector.textfile",
                "--collector.textfile.directory=\(collector)",
            ])
        return (exporter, port)
    }

    @Test(
        "node_exporter's textfile collector serves the daemon's figures with the right values",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: nodeExporter),
            "prometheus-node-exporter is not installed (apt-get install prometheus-node-exporter)"))
    func nodeExporterServesTheFigures() throws {
        let (daemon, collector) = try Self.startDaemon()
        defer { daemon.stop() }
        let (exporter, port) = try Self.startExporter(collector: collector)
        defer {
            exporter.signal(SIGTERM)
            exporter.wait(timeout: 10)
        }
        // A refused client, and an answered one.
        let refused = try daemon.cli(["get", "--json", "--timeout", "2"], timeout: 30)
        #expect(refused.status != 0)
        #expect(try daemon.cli(["status", "--json"], timeout: 30).status == 0)

        let url = "http://127.0.0.1:\(port)/metrics"
        let exposition = Self.poll(url, within: 30) { text in
            Self.sample(text, "petspot_source_fixes_total") == 4
                && Self.sample(text, #"petspot_requests_total{method="daemon.status",outcome="ok"}"#) == 1
        }
        let text = try #require(
            exposition,
            "node_exporter never served the scenario's figures:\n\(Self.get(url) ?? "(nothing)")\n\(exporter.errors())")
        #expect(Self.sample(text, "node_textfile_scrape_error") == 0, "the file did not parse")
        #expect(Self.sample(text, "petspot_source_fixes_total") == 4)
        #expect(Self.sample(text, "petspot_source_rejected_total") == 1)
        #expect(Self.sample(text, "petspot_source_reconnects_total") == 1)
        #expect(Self.sample(text, "petspot_source_connected") == 1)
        #expect(Self.sample(text, "petspot_source_fix_mode") == 2)
        #expect(Self.sample(text, #"petspot_requests_total{method="location.get",outcome="error"}"#) == 1)
        #expect(Self.sample(text, #"petspot_requests_total{method="location.get",outcome="ok"}"#) == 0)
        #expect(Self.sample(text, #"petspot_authorizations_total{status="denied"}"#) == 1)
        #expect(Self.sample(text, #"petspot_errors_total{code="-32002"}"#) == 1)
        #expect(Self.sample(text, "petspot_audit_write_failures_total") == 0)
        #expect(Self.sample(text, "petspot_watchers") == 0)
        let age = try #require(Self.sample(text, "petspot_source_fix_age_seconds"))
        #expect(age >= 0 && age < 600)
        // Figures, never positions.
        #expect(!text.contains("47.37") && !text.contains("8.541"), "a coordinate reached the metrics")
    }

    @Test(
        "prometheus scrapes node_exporter and its query API returns the daemon's fix age",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: nodeExporter)
                && FileManager.default.isExecutableFile(atPath: prometheus),
            "prometheus or prometheus-node-exporter is not installed (apt-get install prometheus prometheus-node-exporter)"
        ))
    func prometheusQueriesTheFixAge() throws {
        let (daemon, collector) = try Self.startDaemon()
        defer { daemon.stop() }
        let (exporter, exporterPort) = try Self.startExporter(collector: collector)
        defer {
            exporter.signal(SIGTERM)
            exporter.wait(timeout: 10)
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let configuration = try directory.write(
            "prometheus.yml",
            """
            global:
              scrape_interval: 1s
            scrape_configs:
              - job_name: station
                static_configs:
                  - targets: ["127.0.0.1:\(exporterPort)"]
            """)
        let port = GpsdDaemonTests.freePort()
        let server = try ChildProcess(
            Self.prometheus,
            [
                "--config.file=\(configuration)", "--storage.tsdb.path=\(directory.path)/data",
                "--web.listen-address=127.0.0.1:\(port)",
            ])
        defer {
            server.signal(SIGTERM)
            server.wait(timeout: 20)
        }
        let query = "http://127.0.0.1:\(port)/api/v1/query?query=petspot_source_fix_age_seconds"
        let answer = Self.poll(query, within: 60) { $0.contains(#""result":[{"#) }
        let body = try #require(
            answer, "prometheus never had the fix age:\n\(Self.get(query) ?? "(nothing)")\n\(server.errors())")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        #expect(json["status"] as? String == "success")
        let result = try #require(((json["data"] as? [String: Any])?["result"] as? [[String: Any]])?.first)
        #expect((result["metric"] as? [String: Any])?["job"] as? String == "station")
        let value = try #require((result["value"] as? [Any])?.last as? String)
        let age = try #require(Double(value))
        #expect(age >= 0 && age < 600, "fix age \(age)")
    }

    @Test(
        "the kiosk's figures reach node_exporter too: visits and the outbox",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: nodeExporter),
            "prometheus-node-exporter is not installed (apt-get install prometheus-node-exporter)"))
    func kioskFiguresReachNodeExporter() throws {
        let directory = try TemporaryDirectory(prefix: "psk")
        defer { directory.remove() }
        let port = GpsdDaemonTests.freePort()
        let configuration = try directory.write(
            "kiosk.toml",
            """
            [kiosk]
            listen = "127.0.0.1:\(port)"
            [location]
            socket = "\(directory.path)/no-daemon.sock"
            [outbox]
            path = "\(directory.path)/outbox"
            [metrics]
            textfile = "\(directory.path)/petspot-kiosk.prom"
            interval = 1
            """)
        let kiosk = try ChildProcess(
            RepositoryPaths.executable("petspot-kiosk"), ["--config", configuration],
            environment: ["XDG_CACHE_HOME": directory.file("cache")])
        defer {
            kiosk.signal(SIGTERM)
            kiosk.wait(timeout: 10)
        }
        try #require(kiosk.waitForStderr(containing: "serving on", timeout: 30), "\(kiosk.errors())")
        let (exporter, exporterPort) = try Self.startExporter(collector: directory.path)
        defer {
            exporter.signal(SIGTERM)
            exporter.wait(timeout: 10)
        }
        // Two people at the screen: each first page opens a visit.
        #expect(Self.get("http://127.0.0.1:\(port)/") != nil)
        #expect(Self.get("http://127.0.0.1:\(port)/") != nil)
        let url = "http://127.0.0.1:\(exporterPort)/metrics"
        let exposition = Self.poll(url, within: 30) { Self.sample($0, "petspot_kiosk_visits_total") == 2 }
        let text = try #require(
            exposition, "node_exporter never served the kiosk's figures:\n\(Self.get(url) ?? "(nothing)")")
        #expect(Self.sample(text, "node_textfile_scrape_error") == 0)
        #expect(Self.sample(text, "petspot_kiosk_reports_submitted_total") == 0)
        #expect(Self.sample(text, "petspot_outbox_readable") == 1)
        #expect(Self.sample(text, #"petspot_outbox_reports{state="pending"}"#) == 0)
        #expect(Self.sample(text, "petspot_outbox_oldest_undelivered_age_seconds") == 0)
    }

    @Test(
        "the alert rules in docs/OPERATIONS.md are valid rules for promtool, naming figures the programs write",
        .enabled(
            if: FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool"),
            "promtool is not installed (apt-get install prometheus)"))
    func documentedAlertRulesAreValid() throws {
        let operations = try String(contentsOfFile: RepositoryPaths.root + "/docs/OPERATIONS.md", encoding: .utf8)
        let afterHeading = try #require(operations.range(of: "### Alert rules\n\n```yaml\n"))
        let rest = operations[afterHeading.upperBound...]
        let end = try #require(rest.range(of: "```"))
        let rules = String(rest[..<end.lowerBound])
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try directory.write("rules.yml", rules)
        let check = try ChildProcess.run("/usr/bin/promtool", ["check", "rules", file], timeout: 30)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        // Each expression names a figure that exists in the code.
        let sources = try ["Sources/PetSpotDaemon", "Sources/PetSpotOutbox"].flatMap { folder in
            try FileManager.default.subpathsOfDirectory(atPath: RepositoryPaths.root + "/" + folder)
                .filter { $0.hasSuffix(".swift") }
                .map { try String(contentsOfFile: RepositoryPaths.root + "/\(folder)/\($0)", encoding: .utf8) }
        }.joined()
        for line in rules.split(separator: "\n") where line.contains("expr:") {
            guard let name = line.split(separator: " ").first(where: { $0.hasPrefix("petspot_") }) else { continue }
            #expect(sources.contains("\"\(name)\""), "\(name) is not a figure the code writes")
        }
    }
}
