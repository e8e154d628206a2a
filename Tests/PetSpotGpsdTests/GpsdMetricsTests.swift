import Foundation
import Glibc
import TestSupport
import Testing

/// The daemon's figures after a real gpsd session, as node_exporter serves
/// them (issue 18): fixes, rejected fixes (another receiver's, on the same
/// gpsd: `source.gpsd.device` names the station's), a refused client and a
/// gpsd restart, checked against the daemon's own
/// `daemon.status` counters once the feed has stopped.
@Suite("metrics after a real gpsd session, through node_exporter")
struct GpsdMetricsTests {
    static func status(_ daemon: DaemonProcess) throws -> [String: Any] {
        let run = try daemon.cli(["status", "--json"], timeout: 30)
        let status = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        return (status?["source"] as? [String: Any]) ?? [:]
    }

    /// Polls `body` until it is true (the daemon and gpsd run on their own clocks).
    static func within(_ seconds: Double, _ body: () throws -> Bool) rethrows -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try body() { return true }
            usleep(100_000)
        }
        return try body()
    }

    @Test(
        "fixes, a rejected fix, a refused client and a gpsd restart: node_exporter serves the daemon's own counts",
        .enabled(
            if: NodeExporter.isInstalled && FileManager.default.isExecutableFile(atPath: "/usr/sbin/gpsd"),
            "gpsd or prometheus-node-exporter is not installed"))
    func countsAfterAGpsdSession() async throws {
        let hasFix = Locked(true)
        let receiver = try SyntheticReceiver.serve(hasFix: hasFix)
        defer { receiver.stop() }
        let otherHasFix = Locked(false)
        let other = try SyntheticReceiver.serve(hasFix: otherHasFix)
        defer { other.stop() }
        let port = freeLoopbackPort()
        let device = "tcp://127.0.0.1:\(receiver.port)"
        let devices = [device, "tcp://127.0.0.1:\(other.port)"]
        var gpsd = try GpsdDaemon(port: port, devices: devices)
        let daemon = try DaemonProcess(
            source: """
                [source]
                kind = "gpsd"
                [source.gpsd]
                port = \(port)
                reconnect_max = 1
                device = "\(device)"
                """,
            policy: "[policy]\ndefault = \"denied\"\n\n" + NodeExporter.metricsTable)
        defer { daemon.stop() }
        let exporter = try NodeExporter(collector: daemon.directory.path)
        defer { exporter.stop() }
        func source(_ key: String) throws -> Int { try Self.status(daemon)[key] as? Int ?? 0 }
        func currentCounts() throws -> [String: Int] {
            let status = try Self.status(daemon)
            return ["fixes", "rejected", "reconnects"].reduce(into: [:]) { $0[$1] = status[$1] as? Int ?? 0 }
        }

        // Fixes.
        #expect(try Self.within(30) { try source("fixes") >= 3 }, "no fixes from gpsd")
        // Another receiver's fixes: rejected.
        otherHasFix.value = true
        #expect(try Self.within(30) { try source("rejected") >= 1 }, "the other device's fixes were not rejected")
        // Gone (every report of that device counts as rejected, with or without a fix).
        other.stop()
        // A refused client.
        #expect(try daemon.cli(["get", "--json", "--timeout", "2"], timeout: 30).status != 0)
        // gpsd restarts: one reconnection, and fixes again.
        await gpsd.kill()
        gpsd = try GpsdDaemon(port: port, devices: devices)
        defer { Task { [gpsd] in await gpsd.kill() } }
        #expect(try Self.within(30) { try source("reconnects") == 1 && source("connected") == 1 }, "no reconnection")
        let before = try source("fixes")
        #expect(try Self.within(30) { try source("fixes") > before }, "no fix after the restart")
        // The feed stops: the counts come to rest, and the metrics must catch up with them
        // exactly. Each scrape is compared with the daemon's counts read after it, so a fix
        // still on its way when the feed stopped only makes this take longer (no guess at
        // when the counts are still).
        hasFix.value = false
        var counts: [String: Int] = [:]
        let exposition = exporter.poll(within: 60) { text in
            guard let now = try? currentCounts() else { return false }
            counts = now
            return NodeExporter.sample(text, "petspot_source_fixes_total").map { Int($0) } == now["fixes"]
                && NodeExporter.sample(text, "petspot_source_rejected_total").map { Int($0) } == now["rejected"]
        }
        let text = try #require(exposition, "fixes \(counts), exposition:\n\(exporter.scrape() ?? "(nothing)")")
        #expect(NodeExporter.sample(text, "node_textfile_scrape_error") == 0)
        #expect(NodeExporter.sample(text, "petspot_source_rejected_total").map { Int($0) } == counts["rejected"])
        #expect(NodeExporter.sample(text, "petspot_source_reconnects_total") == 1)
        #expect(counts["rejected"].map { $0 >= 1 } == true && counts["fixes"].map { $0 >= 4 } == true)
        #expect(NodeExporter.sample(text, #"petspot_requests_total{method="location.get",outcome="error"}"#) == 1)
        #expect(NodeExporter.sample(text, #"petspot_authorizations_total{status="denied"}"#) == 1)
        #expect(NodeExporter.sample(text, "petspot_source_connected") == 1)
        #expect(NodeExporter.sample(text, "petspot_source_fix_mode") == 3)
    }
}
