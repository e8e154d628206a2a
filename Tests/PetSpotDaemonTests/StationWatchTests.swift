import Foundation
import Logging
import MetricsTestKit
import PetSpotDaemon
import PetSpotFixHub
import PetSpotJSON
import PetSpotLocation
import Testing
import TestSupport

/// The moved-station alarm: beyond the radius for the hold time is moved,
/// within it for as long is back; jitter and short spikes never trip it.
@Suite struct StationWatchTests {
    static let home = Coordinate(latitude: 52.2297, longitude: 21.0122)
    static let start = ContinuousClock.now

    /// A fix `north` metres north of home, `seconds` after ``start``.
    static func fix(north: Double, at seconds: Double) -> LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: home.latitude + north / 111_195, longitude: home.longitude),
            horizontalAccuracy: 5, mode: .twoD, source: .gpsd, receivedAt: start + .seconds(seconds))
    }

    struct Setup {
        let directory: TemporaryDirectory
        let audit: AuditLog
        let metrics = TestMetrics()
        let watch: StationWatch

        init() throws {
            directory = try TemporaryDirectory()
            let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            audit = AuditLog(path: directory.file("audit.jsonl"), maxBytes: 1 << 20, logger: logger)
            watch = StationWatch(
                home: StationWatchTests.home, radius: 100, hold: .seconds(10), hub: LiveFixHub(kind: .gpsd),
                audit: audit,
                logger: logger, metrics: metrics)
        }

        var records: [String] {
            ((try? String(contentsOfFile: directory.file("audit.jsonl"), encoding: .utf8)) ?? "")
                .split(separator: "\n").map(String.init)
        }

        func gauge(_ label: String) throws -> Double? { try metrics.expectGauge(label).lastValue }
    }

    @Test func jitterWithinTheRadiusAndAShortSpikeNeverTripIt() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        // Ten minutes of ±60 m jitter, and one 300 m multipath spike held for 9 s (< 10 s).
        for second in 0..<600 {
            setup.watch.observe(Self.fix(north: second % 2 == 0 ? 60 : -60, at: Double(second)))
        }
        for second in 600..<609 { setup.watch.observe(Self.fix(north: 300, at: Double(second))) }
        setup.watch.observe(Self.fix(north: 10, at: 609))
        #expect(!setup.watch.isMoved)
        #expect(setup.records.isEmpty)
        #expect(try setup.gauge("petspot_station_moved") == 0)
        #expect(try setup.gauge("petspot_station_displacement_meters").map { abs($0 - 10) < 1 } == true)
    }

    @Test func fiveHundredMetresAwayForTheHoldIsMovedAndBackIsReturned() throws {
        let setup = try Setup()
        defer { setup.directory.remove() }
        setup.watch.observe(Self.fix(north: 0, at: 0))
        #expect(setup.watch.status == ["moved": false, "radius": 100, "displacement": 0])
        // Walked away: beyond the radius from 10 s on; moved once it has been so for 10 s.
        for second in 10..<20 { setup.watch.observe(Self.fix(north: 500, at: Double(second))) }
        #expect(!setup.watch.isMoved)
        setup.watch.observe(Self.fix(north: 500, at: 20))
        #expect(setup.watch.isMoved)
        #expect(try setup.gauge("petspot_station_moved") == 1)
        let status = setup.watch.status
        #expect(status["moved"] == true && status["displacement"] == 500 && status["since"] != nil)
        // Back: within the radius for 10 s.
        for second in 30...40 { setup.watch.observe(Self.fix(north: 20, at: Double(second))) }
        #expect(!setup.watch.isMoved)
        #expect(try setup.gauge("petspot_station_moved") == 0)
        let records = setup.records
        try #require(records.count == 2, "\(records)")
        #expect(records[0].contains(#""method":"station.moved""#))
        #expect(records[0].contains("displacement 500 m, radius 100 m, beyond it for 10 s"), "\(records[0])")
        #expect(records[1].contains(#""method":"station.returned""#))
        // A distance, never a position.
        #expect(!records.joined().contains("52.2") && !records.joined().contains("21.01"))
    }
}
