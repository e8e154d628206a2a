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
        let hub = FixHub(kind: .gpsd, fallback: position.fallback)
        await hub.receive(.disconnected(reason: "no gpsd"))
        let fix = try await hub.location(LocationRequest())
        #expect(fix.coordinate == position.coordinate)
        #expect(fix.source == .static)
        #expect(fix.age() < 5)
        #expect(await hub.status().fallback == .static)
    }
}

@Suite struct StaticLocationServiceTests {
    @Test func answersItsPosition() async throws {
        let service = StaticLocationService(position: try StaticPosition(latitude: 1, longitude: 2))
        let fix = try await service.location(LocationRequest(maxAge: .zero))
        #expect(fix.coordinate == Coordinate(latitude: 1, longitude: 2))
        #expect(fix.age() < 5)
        #expect(try await service.location(LocationRequest(minMode: .twoD)).mode == .twoD)
    }

    @Test func twoDimensionalPositionCannotAnswerA3DRequest() async throws {
        let service = StaticLocationService(position: try StaticPosition(latitude: 1, longitude: 2))
        await #expect(throws: LocationError.locationUnknown) {
            try await service.location(LocationRequest(minMode: .threeD))
        }
        let withAltitude = StaticLocationService(position: try StaticPosition(latitude: 1, longitude: 2, altitude: 3))
        #expect(try await withAltitude.location(LocationRequest(minMode: .threeD)).mode == .threeD)
    }

    @Test func watchersGetThePositionAtOnce() async throws {
        let service = StaticLocationService(position: try StaticPosition(latitude: 1, longitude: 2))
        var iterator = service.updates(WatchOptions(distanceFilter: 10)).makeAsyncIterator()
        let fix = try await iterator.next()
        #expect(fix?.coordinate == Coordinate(latitude: 1, longitude: 2))
    }

    @Test func status() async throws {
        let service = StaticLocationService(position: try StaticPosition(latitude: 1, longitude: 2))
        let status = await service.sourceStatus()
        #expect(status.kind == .static)
        #expect(status.connected)
        #expect(try await service.authorizationStatus() == .alwaysAuthorized)
    }
}
