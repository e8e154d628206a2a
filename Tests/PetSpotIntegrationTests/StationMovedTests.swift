import Foundation
import Testing
import TestSupport

/// The moved-station alarm in the daemon process: a receiver that walks
/// the station 500 m away and back, with jitter before it.
@Suite("moved-station alarm")
struct StationMovedTests {
    static let home = (latitude: 52.2297, longitude: 21.0122)
    /// Degrees of latitude per metre.
    static let degree = 1 / 111_195.0

    /// Jitter of ±60 m at home (radius 100 m) for 3 s, one 300 m spike
    /// shorter than the hold, then 500 m north for 30 s, and home again.
    /// (The alarm judges fixes by their receipt times, so a loaded machine
    /// cannot trip it; the long stay away leaves a test that polls through a
    /// CLI on such a machine ample time to see the alarm and its metric.)
    static var scenario: String {
        func fix(_ north: Double) -> String {
            #"{"fix": {"latitude": \#(home.latitude + north * degree), "longitude": \#(home.longitude), "horizontalAccuracy": 5, "mode": 2}}"#
        }
        func path(from: Double, to: Double, count: Int) -> String {
            #"{"path": {"from": {"latitude": \#(home.latitude + from * degree), "longitude": \#(home.longitude)}, "to": {"latitude": \#(home.latitude + to * degree), "longitude": \#(home.longitude)}, "count": \#(count), "interval": 0.1, "horizontalAccuracy": 5, "mode": 2}}"#
        }
        var steps: [String] = []
        for index in 0..<30 { steps += [fix(index % 2 == 0 ? 60 : -60), #"{"wait": 0.1}"#] }
        steps += [fix(300), #"{"wait": 0.5}"#, fix(0), #"{"wait": 0.1}"#]
        steps += [path(from: 0, to: 500, count: 10), path(from: 500, to: 500, count: 300)]
        steps += [path(from: 500, to: 0, count: 10), path(from: 0, to: 0, count: 30), #"{"noFix": 3600}"#]
        return #"{"steps": [\#(steps.joined(separator: ",\n"))]}"#
    }

    static func status(_ daemon: DaemonProcess) throws -> [String: Any]? {
        let run = try daemon.cli(["status", "--json"], timeout: 30)
        guard run.status == 0 else { return nil }
        return (try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])?["station"]
            as? [String: Any]
    }

    /// Polls `daemon.status` until `accept` takes its `station` (the receiver moves on its own clock).
    static func station(
        _ daemon: DaemonProcess, within seconds: Double, until accept: ([String: Any]) -> Bool
    ) throws -> [String: Any]? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if let station = try status(daemon), accept(station) { return station }
            usleep(100_000)
        }
        return nil
    }

    @Test("500 m away and back: status, metric and audit record; jitter and a short spike never trip it")
    func awayAndBack() throws {
        let daemon = try DaemonProcess(
            source: """
                [source]
                kind = "simulated"
                fallback = "static"
                [source.simulated]
                scenario = "{dir}/walk.json"
                [source.static]
                latitude = \(Self.home.latitude)
                longitude = \(Self.home.longitude)
                moved_radius_m = 100
                moved_after = 1
                """,
            policy: """
                [policy]
                default = "authorized"
                [metrics]
                textfile = "{dir}/petspot.prom"
                interval = 1
                """,
            files: ["walk.json": Self.scenario])
        defer { daemon.stop() }
        let away = try #require(
            try Self.station(daemon, within: 90) { $0["moved"] as? Bool == true }, "never reported as moved")
        let displacement = try #require(away["displacement"] as? Double)
        #expect(abs(displacement - 500) < 60, "displacement \(displacement)")
        #expect(away["radius"] as? Double == 100)
        #expect(away["since"] is String)
        // The metric, at the next write (every second) after the change.
        let prom = daemon.directory.file("petspot.prom")
        var moved: String?
        let deadline = Date().addingTimeInterval(25)
        while moved == nil, Date() < deadline {
            let text = (try? String(contentsOfFile: prom, encoding: .utf8)) ?? ""
            if text.contains("petspot_station_moved 1") { moved = text }
            usleep(100_000)
        }
        #expect(moved != nil, "petspot_station_moved 1 never written")
        let back = try Self.station(daemon, within: 120) { $0["moved"] as? Bool == false && $0["since"] != nil }
        #expect(back != nil, "never reported back")
        // Exactly one move and one return were audited: the jitter and the spike before the walk were not.
        let audit = try String(contentsOfFile: daemon.directory.file("state/audit.jsonl"), encoding: .utf8)
        let records = audit.split(separator: "\n").filter { $0.contains(#""method":"station."#) }
        try #require(records.count == 2, "\(records)")
        #expect(records[0].contains(#""method":"station.moved""#))
        #expect(records[1].contains(#""method":"station.returned""#))
        #expect(!audit.contains("52.2") && !audit.contains("21.01"), "a coordinate reached the audit log")
    }

    @Test("a static primary or no static position: no alarm in daemon.status")
    func noAlarmWithoutALiveSourceAndAPosition() throws {
        let daemon = try DaemonProcess(source: Fixtures.simulated("walk.json"), files: ["walk.json": Fixtures.walk])
        defer { daemon.stop() }
        let run = try daemon.cli(["status", "--json"], timeout: 30)
        let status = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(status["station"] == nil)
    }
}
