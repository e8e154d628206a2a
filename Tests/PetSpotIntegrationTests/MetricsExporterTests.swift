import Glibc
import Foundation
import Testing
import TestSupport

/// The fleet path end to end (issue 18): the daemon writes its figures to a
/// `.prom` file, Debian's real `prometheus-node-exporter` serves them with
/// its textfile collector over loopback, and a real `prometheus` scrapes
/// that and answers a query. No listener of the daemon's own.
@Suite("metrics through node_exporter and prometheus", .serialized)
struct MetricsExporterTests {
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

    /// A daemon playing ``scenario`` with its metrics file in its own folder (the collector's), under a policy that refuses root.
    static func startDaemon() throws -> (DaemonProcess, collector: String) {
        let daemon = try DaemonProcess(
            source: Fixtures.simulated("scenario.json"),
            policy: "[policy]\ndefault = \"denied\"\n\n" + NodeExporter.metricsTable,
            files: ["scenario.json": scenario])
        return (daemon, daemon.directory.path)
    }

    @Test(
        "node_exporter's textfile collector serves the daemon's figures with the right values",
        .enabled(
            if: NodeExporter.isInstalled,
            "prometheus-node-exporter is not installed (apt-get install prometheus-node-exporter)"))
    func nodeExporterServesTheFigures() throws {
        let (daemon, collector) = try Self.startDaemon()
        defer { daemon.stop() }
        let exporter = try NodeExporter(collector: collector)
        defer { exporter.stop() }
        // A refused client, and an answered one.
        let refused = try daemon.cli(["get", "--json", "--timeout", "2"], timeout: 30)
        #expect(refused.status != 0)
        #expect(try daemon.cli(["status", "--json"], timeout: 30).status == 0)

        let exposition = exporter.poll(within: 90) { text in
            NodeExporter.sample(text, "petspot_source_fixes_total") == 4
                && NodeExporter.sample(text, #"petspot_requests_total{method="daemon.status",outcome="ok"}"#) == 1
        }
        let text = try #require(
            exposition,
            "node_exporter never served the scenario's figures:\n\(exporter.scrape() ?? "(nothing)")\n\(exporter.child.errors())"
        )
        #expect(NodeExporter.sample(text, "node_textfile_scrape_error") == 0, "the file did not parse")
        #expect(NodeExporter.sample(text, "petspot_source_fixes_total") == 4)
        #expect(NodeExporter.sample(text, "petspot_source_rejected_total") == 1)
        #expect(NodeExporter.sample(text, "petspot_source_reconnects_total") == 1)
        #expect(NodeExporter.sample(text, "petspot_source_connected") == 1)
        #expect(NodeExporter.sample(text, "petspot_source_fix_mode") == 2)
        #expect(NodeExporter.sample(text, #"petspot_requests_total{method="location.get",outcome="error"}"#) == 1)
        #expect(NodeExporter.sample(text, #"petspot_requests_total{method="location.get",outcome="ok"}"#) == 0)
        #expect(NodeExporter.sample(text, #"petspot_authorizations_total{status="denied"}"#) == 1)
        #expect(NodeExporter.sample(text, #"petspot_errors_total{code="-32002"}"#) == 1)
        #expect(NodeExporter.sample(text, "petspot_audit_write_failures_total") == 0)
        #expect(NodeExporter.sample(text, "petspot_watchers") == 0)
        let age = try #require(NodeExporter.sample(text, "petspot_source_fix_age_seconds"))
        #expect(age >= 0 && age < 600)
        #expect((NodeExporter.sample(text, "petspot_context_switches_total") ?? 0) > 0)
        // Figures, never positions.
        #expect(!text.contains("47.37") && !text.contains("8.541"), "a coordinate reached the metrics")
        try Self.expectPromtoolFindsNothing(in: collector + "/petspot.prom")
    }

    /// `promtool check metrics` on a program's file: every figure has
    /// `# HELP` and `# TYPE`, and nothing else is flagged (issue 28, item 7).
    static func expectPromtoolFindsNothing(in path: String) throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool") else { return }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(text.contains("# HELP petspot_"), "\(text)")
        let check = try ChildProcess.run("/usr/bin/promtool", ["check", "metrics"], input: text, timeout: 30)
        #expect(
            check.status == 0 && check.stdout.isEmpty && check.stderr.isEmpty,
            "promtool check metrics on \(path): \(check.stdout)\(check.stderr)")
    }

    @Test(
        "prometheus scrapes node_exporter and its query API returns the daemon's fix age",
        .enabled(
            if: NodeExporter.isInstalled
                && FileManager.default.isExecutableFile(atPath: prometheus),
            "prometheus or prometheus-node-exporter is not installed (apt-get install prometheus prometheus-node-exporter)"
        ))
    func prometheusQueriesTheFixAge() throws {
        let (daemon, collector) = try Self.startDaemon()
        defer { daemon.stop() }
        let exporter = try NodeExporter(collector: collector)
        defer { exporter.stop() }
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
                  - targets: ["127.0.0.1:\(exporter.port)"]
            """)
        let port = freeLoopbackPort()
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
        let answer = loopbackPoll(query, within: 120) { $0.contains(#""result":[{"#) }
        let body = try #require(
            answer, "prometheus never had the fix age:\n\(loopbackGet(query) ?? "(nothing)")\n\(server.errors())")
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
            if: NodeExporter.isInstalled,
            "prometheus-node-exporter is not installed (apt-get install prometheus-node-exporter)"))
    func kioskFiguresReachNodeExporter() throws {
        let directory = try TemporaryDirectory(prefix: "psk")
        defer { directory.remove() }
        let port = freeLoopbackPort()
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
        try #require(kiosk.waitForStderr(containing: "serving on", timeout: 60), "\(kiosk.errors())")
        let exporter = try NodeExporter(collector: directory.path)
        defer { exporter.stop() }
        // Two people at the screen: each tap on the welcome page (POST /start) opens a visit.
        #expect(loopbackGet("http://127.0.0.1:\(port)/") != nil)
        let tap = """
            import http.client, sys
            c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=30)
            c.request("POST", "/start", body="", headers={"Content-Type": "application/x-www-form-urlencoded"})
            print(c.getresponse().status)
            """
        for _ in 0..<2 {
            let run = try ChildProcess.run("/usr/bin/python3", ["-c", tap, String(port)], timeout: 60)
            #expect(
                run.status == 0 && (Int(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 500) < 400,
                "\(run)")
        }
        let exposition = exporter.poll(within: 90) { NodeExporter.sample($0, "petspot_kiosk_visits_total") == 2 }
        let text = try #require(
            exposition, "node_exporter never served the kiosk's figures:\n\(exporter.scrape() ?? "(nothing)")")
        #expect(NodeExporter.sample(text, "node_textfile_scrape_error") == 0)
        #expect(NodeExporter.sample(text, "petspot_kiosk_reports_submitted_total") == 0)
        #expect(NodeExporter.sample(text, "petspot_outbox_readable") == 1)
        #expect(NodeExporter.sample(text, #"petspot_outbox_reports{state="pending"}"#) == 0)
        #expect(NodeExporter.sample(text, "petspot_outbox_oldest_undelivered_age_seconds") == 0)
        try Self.expectPromtoolFindsNothing(in: directory.path + "/petspot-kiosk.prom")
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
