import Foundation
import PetSpotFixHub
import PetSpotLocation
import PetSpotStaticSource
import Testing

@Suite struct StaticPositionTests {
    @Test func twoDimensionalWithoutAltitude() throws {
        let position = try StaticPosition(latitude: 52.2297, longitude: 21.0122, horizontalAccuracy: 30)
        let fix = position.fix()
        #expect(fix.mode == .twoD)
        #expect(fix.altitude == nil)
        #expect(fix.coordinate == Coordinate(latitude: 52.2297, longitude: 21.0122))
        #expect(fix.horizontalAccuracy == 30)
        #expect(fix.source == .static)
        #expect(fix.accuracy == .full)
    }

    @Test func threeDimensionalWithAltitude() throws {
        let fix = try StaticPosition(latitude: -33.8688, longitude: 151.2093, altitude: 58).fix()
        #expect(fix.mode == .threeD)
        #expect(fix.altitude == 58)
        #expect(fix.horizontalAccuracy == nil)
        #expect(fix.sanitized() == fix)
    }

    @Test(arguments: [(90.0, 180.0), (-90.0, -180.0), (0.0, 0.0)])
    func boundsAreAccepted(latitude: Double, longitude: Double) throws {
        let position = try StaticPosition(latitude: latitude, longitude: longitude)
        #expect(position.coordinate == Coordinate(latitude: latitude, longitude: longitude))
    }

    @Test(arguments: [
        (91.0, 0.0, CoordinateError.latitudeOutOfRange(91)), (-90.5, 0.0, .latitudeOutOfRange(-90.5)),
        (0.0, 181.0, .longitudeOutOfRange(181)), (0.0, -180.000_001, .longitudeOutOfRange(-180.000_001)),
        (0.0, .infinity, .longitudeOutOfRange(.infinity)),
    ])
    func outOfRangeIsRefused(latitude: Double, longitude: Double, error: CoordinateError) {
        #expect(throws: error) { try StaticPosition(latitude: latitude, longitude: longitude) }
    }

    @Test func nanIsRefused() {
        #expect(throws: CoordinateError.self) { try StaticPosition(latitude: .nan, longitude: 0) }
    }

    @Test func timestampIsTheTimeOfTheAnswer() throws {
        let position = try StaticPosition(latitude: 1, longitude: 2)
        let now = ContinuousClock.now
        let fix = position.fix(at: now)
        #expect(fix.receivedAt == now)
        #expect(fix.age(at: now) == 0)
        let timestamp = try #require(fix.timestamp)
        #expect(abs(timestamp.secondsSince1970 - Date().timeIntervalSince1970) < 5)
    }

    @Test func asAFallback() async throws {
        let position = try StaticPosition(latitude: 1, longitude: 2, horizontalAccuracy: 30)
        let hub = LiveFixHub(kind: .gpsd, fallback: position.fallback)
        hub.receive(.disconnected(reason: "no gpsd"))
        let fix = try await hub.location(LocationRequest())
        #expect(fix.coordinate == position.coordinate)
        #expect(fix.source == .static)
        #expect(fix.age() < 5)
        #expect(hub.status().fallback == .static)
    }
}

/// The static source is a FixedPosition fed by a ticker: the position answers
/// every request at once, and ticks reach watchers only while someone listens.
@Suite(.timeLimit(.minutes(1))) struct StaticSourceTests {
    static let position = try! StaticPosition(latitude: 1, longitude: 2)

    @Test func answersItsPositionAtOnce() async throws {
        let hub = StaticFixProducer(position: Self.position).makePosition()
        let fix = try await hub.location(LocationRequest(maxAge: .zero))
        #expect(fix.coordinate == Coordinate(latitude: 1, longitude: 2))
        #expect(fix.age() < 5)
        #expect(try await hub.location(LocationRequest(minMode: .twoD)).mode == .twoD)
        // Without an actor hop too, and without any tick having happened.
        #expect(hub.cachedAnswer(LocationRequest(maxAge: .zero))?.coordinate == fix.coordinate)
        #expect(await hub.status().fixes == 0)
    }

    @Test func twoDimensionalPositionRefusesA3DRequestAtOnce() async throws {
        let hub = StaticFixProducer(position: Self.position).makePosition()
        // Nothing better will come: refused at once, not at the 300 s timeout (the suite's limit is a minute).
        await #expect(throws: LocationError.locationUnknown) {
            try await hub.location(LocationRequest(timeout: .seconds(300), minMode: .threeD))
        }
        #expect(hub.cachedAnswer(LocationRequest(minMode: .threeD)) == nil)
        let withAltitude = StaticFixProducer(position: try StaticPosition(latitude: 1, longitude: 2, altitude: 3))
        #expect(try await withAltitude.makePosition().location(LocationRequest(minMode: .threeD)).mode == .threeD)
    }

    @Test func aNewWatcherIsShownThePosition() throws {
        let hub = StaticFixProducer(position: Self.position).makePosition()
        #expect(hub.fixForNewWatcher()?.coordinate == Self.position.coordinate)
        // A live hub has nothing to show before its next fix.
        #expect(LiveFixHub(kind: .gpsd, fallback: Self.position.fallback).fixForNewWatcher() == nil)
    }

    @Test func ticksWhileWatchedOnAFixedSchedule() async throws {
        let period = Duration.milliseconds(20)
        let producer = StaticFixProducer(position: Self.position, period: period)
        let hub = producer.makePosition()
        let running = Task { await producer.run(reportingTo: hub) }
        defer { running.cancel() }
        var updates = hub.updates(WatchOptions()).makeAsyncIterator()
        var times: [ContinuousClock.Instant] = []
        for _ in 0..<3 {
            let fix = try #require(try await updates.next())
            #expect(fix.coordinate == Self.position.coordinate && fix.source == .static)
            times.append(fix.receivedAt)
        }
        // Whole periods apart (a slow consumer may skip a tick, never shift one).
        for (previous, next) in zip(times, times.dropFirst()) {
            let periods = (next - previous) / period
            #expect(periods >= 1 && periods == periods.rounded(), "\(next - previous)")
        }
        #expect(await hub.status().lastFixAge == 0)
    }

    @Test func restsWhileNobodyListens() async throws {
        let producer = StaticFixProducer(position: Self.position, period: .milliseconds(1))
        let hub = producer.makePosition()
        let running = Task { await producer.run(reportingTo: hub) }
        // An absence has no signal: fifty periods with nobody listening must bring no tick.
        try await Task.sleep(for: .milliseconds(50))
        #expect(await hub.status().fixes == 0)
        #expect(!hub.isListened)
        // A listener wakes it.
        var updates = hub.updates(WatchOptions()).makeAsyncIterator()
        #expect(try await updates.next() != nil)
        #expect(await hub.status().fixes >= 1)
        running.cancel()
        await running.value  // returns once cancelled, whether waiting for a listener or for the next tick
    }

    @Test func cancelledWhileWaitingForAListenerReturns() async {
        let producer = StaticFixProducer(position: Self.position)
        let hub = producer.makePosition()
        let running = Task { await producer.run(reportingTo: hub) }
        running.cancel()
        await running.value
        #expect(await hub.status().fixes == 0)
    }

    @Test func status() async throws {
        let hub = StaticFixProducer(position: Self.position).makePosition()
        let status = await hub.status()
        #expect(status.kind == .static)
        #expect(status.connected)
        #expect(status.fallback == nil)
        #expect(status.lastFixAge == 0)
    }
}
