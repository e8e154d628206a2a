import PetSpotLocation
import Testing

@Suite struct CoordinateTests {
    @Test(arguments: [
        (-90.0, 0.0), (90.0, 0.0), (0.0, -180.0), (0.0, 180.0), (-90.0, -180.0), (90.0, 180.0),
        (0.0, 0.0), (52.2297, 21.0122), (-33.8688, 151.2093),
    ])
    func boundsAreValid(latitude: Double, longitude: Double) throws {
        let coordinate = try Coordinate(validatingLatitude: latitude, longitude: longitude)
        #expect(coordinate.latitude == latitude)
        #expect(coordinate.longitude == longitude)
        #expect(coordinate.isValid)
        #expect(Coordinate(latitude: latitude, longitude: longitude).isValid)
        #expect(Coordinate.problem(latitude: latitude, longitude: longitude) == nil)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 90.000_000_1, -90.000_000_1, 180.0, -1000.0])
    func badLatitudeIsRefused(latitude: Double) {
        #expect(!Coordinate(latitude: latitude, longitude: 10).isValid)
        #expect(!Coordinate.isValidLatitude(latitude))
        do {
            _ = try Coordinate(validatingLatitude: latitude, longitude: 10)
            Issue.record("latitude \(latitude) was accepted")
        } catch {
            guard case .latitudeOutOfRange(let value) = error else {
                Issue.record("wrong error \(error) for latitude \(latitude)")
                return
            }
            #expect(value == latitude || (value.isNaN && latitude.isNaN))
        }
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 180.000_000_1, -180.000_000_1, 360.0])
    func badLongitudeIsRefused(longitude: Double) {
        #expect(!Coordinate(latitude: 10, longitude: longitude).isValid)
        #expect(!Coordinate.isValidLongitude(longitude))
        do {
            _ = try Coordinate(validatingLatitude: 10, longitude: longitude)
            Issue.record("longitude \(longitude) was accepted")
        } catch {
            guard case .longitudeOutOfRange(let value) = error else {
                Issue.record("wrong error \(error) for longitude \(longitude)")
                return
            }
            #expect(value == longitude || (value.isNaN && longitude.isNaN))
        }
    }

    @Test func latitudeIsReportedFirstWhenBothAreBad() {
        #expect(Coordinate.problem(latitude: 91, longitude: 181) == .latitudeOutOfRange(91))
    }

    @Test func errorDescriptionNamesTheComponent() {
        #expect(CoordinateError.latitudeOutOfRange(91).description.contains("latitude 91"))
        #expect(CoordinateError.longitudeOutOfRange(-181).description.contains("longitude -181"))
    }
}

@Suite struct GeodesyTests {
    @Test func oneDegreeOfLatitude() {
        let distance = Geodesy.distance(
            from: Coordinate(latitude: 52, longitude: 21), to: Coordinate(latitude: 53, longitude: 21))
        #expect(abs(distance - 111_200) / 111_200 < 0.005, "got \(distance)")
    }

    @Test func oneDegreeOfLongitudeAtTheEquator() {
        let distance = Geodesy.distance(
            from: Coordinate(latitude: 0, longitude: 0), to: Coordinate(latitude: 0, longitude: 1))
        #expect(abs(distance - 111_200) / 111_200 < 0.005, "got \(distance)")
    }

    @Test func crossingTheAntimeridianIsShort() {
        let distance = Geodesy.distance(
            from: Coordinate(latitude: 0, longitude: 179.9995), to: Coordinate(latitude: 0, longitude: -179.9995))
        // 0.001 degrees of longitude at the equator: about 111 m, not 40 000 km.
        #expect(abs(distance - 111.2) < 1, "got \(distance)")
    }

    @Test func samePointAndSymmetry() {
        let a = Coordinate(latitude: 52.2297, longitude: 21.0122)
        let b = Coordinate(latitude: 48.8566, longitude: 2.3522)
        #expect(Geodesy.distance(from: a, to: a) == 0)
        #expect(abs(Geodesy.distance(from: a, to: b) - Geodesy.distance(from: b, to: a)) < 1e-6)
        // Warsaw to Paris is about 1367 km.
        #expect(abs(Geodesy.distance(from: a, to: b) - 1_367_000) < 10_000)
    }

    @Test func antipodesAreHalfTheCircumference() {
        let distance = Geodesy.distance(
            from: Coordinate(latitude: 0, longitude: 0), to: Coordinate(latitude: 0, longitude: 180))
        #expect(abs(distance - Double.pi * Geodesy.earthRadius) < 1)
    }
}
