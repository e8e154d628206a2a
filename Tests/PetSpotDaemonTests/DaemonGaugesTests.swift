import MetricsTestKit
import PetSpotDaemon
import PetSpotFixHub
import PetSpotLocation
import PetSpotStaticSource
import Testing

/// The figures read from state: each gauge says what the hub and the
/// registry hold at the refresh, and the source's counts arrive as increments.
@Suite struct DaemonGaugesTests {
    static func fix(
        _ latitude: Double, mode: FixMode = .threeD, receivedAt: ContinuousClock.Instant = .now
    )
        -> LocationFix
    {
        LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: 21), altitude: mode == .threeD ? 100 : nil,
            horizontalAccuracy: 5, mode: mode, source: .gpsd, receivedAt: receivedAt)
    }

    @Test func reflectTheSourceAndTheClients() async throws {
        let metrics = TestMetrics()
        let hub = LiveFixHub(kind: .gpsd)
        let registry = ClientRegistry(capacity: 8)
        let started = ContinuousClock.now - .seconds(30)
        let gauges = DaemonGauges(hub: hub, registry: registry, startedAt: started, factory: metrics)
        func gauge(_ label: String) throws -> Double? { try metrics.expectGauge(label).lastValue }
        func total(_ label: String) throws -> Int64 { try metrics.expectCounter(label).totalValue }

        // Before anything: down, no fix, the age since start.
        await gauges.refresh()
        #expect(try gauge("petspot_source_connected") == 0)
        #expect(try gauge("petspot_source_has_fix") == 0)
        #expect(try gauge("petspot_source_fix_mode") == 0)
        #expect(try #require(try gauge("petspot_source_fix_age_seconds")) >= 30)
        #expect(try gauge("petspot_clients") == 0)

        hub.receive(.connected(device: "/dev/ttyACM0"))
        hub.receive(.fix(Self.fix(52)))
        hub.receive(.fix(Self.fix(91)))  // invalid: rejected
        hub.receive(.fix(Self.fix(52.1)))
        _ = registry.admit(uid: 1000)
        await gauges.refresh()
        #expect(try gauge("petspot_source_connected") == 1)
        #expect(try gauge("petspot_source_has_fix") == 1)
        #expect(try gauge("petspot_source_fix_mode") == 3)
        #expect(try #require(try gauge("petspot_source_fix_age_seconds")) < 30)
        #expect(try total("petspot_source_fixes_total") == 2)
        #expect(try total("petspot_source_rejected_total") == 1)
        #expect(try gauge("petspot_clients") == 1)

        // A stale fix, an outage and a reconnection: counts move by what happened since the last refresh.
        hub.receive(.disconnected(reason: "gpsd restarted"))
        hub.receive(.connected(device: "/dev/ttyACM0"))
        hub.receive(.fix(Self.fix(52.2, mode: .twoD, receivedAt: .now - .seconds(60))))
        await gauges.refresh()
        #expect(try gauge("petspot_source_has_fix") == 0)
        #expect(try gauge("petspot_source_fix_mode") == 2)
        #expect(try #require(try gauge("petspot_source_fix_age_seconds")) >= 60)
        #expect(try total("petspot_source_fixes_total") == 3)
        #expect(try total("petspot_source_reconnects_total") == 1)
    }

    @Test func aStaticSourceAlwaysHasItsFix() async throws {
        let metrics = TestMetrics()
        let hub = StaticFixProducer(position: try StaticPosition(latitude: 1, longitude: 2)).makePosition()
        let gauges = DaemonGauges(hub: hub, registry: ClientRegistry(capacity: 8), factory: metrics)
        await gauges.refresh()
        #expect(try metrics.expectGauge("petspot_source_connected").lastValue == 1)
        #expect(try metrics.expectGauge("petspot_source_has_fix").lastValue == 1)
        #expect(try metrics.expectGauge("petspot_source_fix_mode").lastValue == 2)
        #expect(try metrics.expectGauge("petspot_source_fix_age_seconds").lastValue == 0)
    }
}
