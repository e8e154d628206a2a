import PetSpotLocation
import PetSpotPolicy
import Testing

@Suite struct ReducedAccuracyTests {
    @Test(arguments: [
        Coordinate(latitude: 52.2297, longitude: 21.0122),
        Coordinate(latitude: 0, longitude: 0),
        Coordinate(latitude: 90, longitude: 0),
        Coordinate(latitude: -90, longitude: 0),
        Coordinate(latitude: 90, longitude: 180),
        Coordinate(latitude: -90, longitude: -180),
        Coordinate(latitude: 89.9999, longitude: 179.9999),
        Coordinate(latitude: -33.8688, longitude: 151.2093),
        Coordinate(latitude: 10, longitude: 180),
        Coordinate(latitude: 10, longitude: -180),
        Coordinate(latitude: 64.1466, longitude: -21.9426),
    ])
    func snappedIsValidAndNearby(_ coordinate: Coordinate) {
        for cell in [1.0, 100, 3000, 50_000, 1_000_000, 30_000_000] {
            let snapped = ReducedAccuracy.snap(coordinate, cellMeters: cell)
            #expect(snapped.isValid, "cell \(cell)")
            #expect(ReducedAccuracy.snap(snapped, cellMeters: cell) == snapped, "centre is its own cell, \(cell)")
            if cell <= 50_000 && abs(coordinate.latitude) < 80 {
                // Within a cell diagonal (cells are at most ~2x the size per side).
                #expect(Geodesy.distance(from: coordinate, to: snapped) <= cell * 2.9, "cell \(cell)")
            }
        }
    }

    @Test func antimeridianIsOneCell() {
        let east = ReducedAccuracy.snap(Coordinate(latitude: 10, longitude: 180), cellMeters: 3000)
        let west = ReducedAccuracy.snap(Coordinate(latitude: 10, longitude: -180), cellMeters: 3000)
        #expect(east == west)
        #expect(west.longitude > -180 && west.longitude < -179.9)
    }

    @Test func polesGiveValidCentres() {
        let north = ReducedAccuracy.snap(Coordinate(latitude: 90, longitude: 123), cellMeters: 3000)
        let south = ReducedAccuracy.snap(Coordinate(latitude: -90, longitude: -45), cellMeters: 3000)
        #expect(north.latitude < 90 && north.latitude > 89.9)
        #expect(south.latitude > -90 && south.latitude < -89.9)
        #expect(north.isValid && south.isValid)
    }

    @Test func invalidInputStillGivesValidOutput() {
        for coordinate in [
            Coordinate(latitude: .nan, longitude: .infinity), Coordinate(latitude: 95, longitude: 540),
            Coordinate(latitude: -100, longitude: -190),
        ] {
            #expect(ReducedAccuracy.snap(coordinate, cellMeters: 3000).isValid)
        }
        #expect(ReducedAccuracy.snap(Coordinate(latitude: 1, longitude: 1), cellMeters: .nan).isValid)
    }

    @Test func pointsInsideOneCellGiveIdenticalBits() {
        let cell = 3000.0
        let centre = ReducedAccuracy.snap(Coordinate(latitude: 52.2297, longitude: 21.0122), cellMeters: cell)
        // Stay well within the cell: ±0.4 of a band in latitude, ±0.4 of 3 km in longitude.
        let latitudeSpan = 0.4 * cell / ReducedAccuracy.metersPerDegree
        let longitudeSpan = latitudeSpan / 0.62
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let point = Coordinate(
                latitude: centre.latitude + Double.random(in: -latitudeSpan...latitudeSpan, using: &generator),
                longitude: centre.longitude + Double.random(in: -longitudeSpan...longitudeSpan, using: &generator))
            let snapped = ReducedAccuracy.snap(point, cellMeters: cell)
            #expect(snapped.latitude.bitPattern == centre.latitude.bitPattern)
            #expect(snapped.longitude.bitPattern == centre.longitude.bitPattern)
        }
    }

    @Test(arguments: [(nil, 3000.0), (5.0, 3000.0), (4000.0, 4000.0), (Double.nan, 3000.0)] as [(Double?, Double)])
    func horizontalAccuracyIsAtLeastCell(reported: Double?, expected: Double) {
        #expect(ReducedAccuracy.horizontalAccuracy(reported, cellMeters: 3000) == expected)
    }

    @Test func reduceMarksFix() {
        let fix = LocationFix(
            coordinate: Coordinate(latitude: 52.2297, longitude: 21.0122), horizontalAccuracy: 4, mode: .twoD,
            source: .gpsd)
        let reduced = ReducedAccuracy.reduce(fix, cellMeters: 3000)
        #expect(reduced.accuracy == .reduced)
        #expect(reduced.horizontalAccuracy == 3000)
        #expect(reduced.coordinate != fix.coordinate)
        #expect(Geodesy.distance(from: reduced.coordinate, to: fix.coordinate) < 5000)
    }

    /// Hardening item 9: nothing in a reduced fix narrows the position inside its cell.
    @Test func item09_reducedFixCarriesNothingThatNarrowsThePosition() {
        let fix = LocationFix(
            coordinate: Coordinate(latitude: 52.2297, longitude: 21.0122), altitude: 112.5, horizontalAccuracy: 4,
            verticalAccuracy: 6, speed: 1.4, course: 93, timestamp: UTCTimestamp(secondsSince1970: 1_700_000_123.75),
            mode: .threeD, source: .gpsd)
        let reduced = ReducedAccuracy.reduce(fix, cellMeters: 3000)
        #expect(reduced.altitude == nil)
        #expect(reduced.verticalAccuracy == nil)
        #expect(reduced.speed == nil)
        #expect(reduced.course == nil)
        #expect(reduced.timestamp == UTCTimestamp(secondsSince1970: 1_700_000_100))
    }

    @Test(arguments: [(0.0, 0.0), (59.999, 0.0), (60.0, 60.0), (1_700_000_123.75, 1_700_000_100.0), (-0.5, -60.0)])
    func timestampsRoundDownToTheMinute(seconds: Double, expected: Double) {
        #expect(
            ReducedAccuracy.roundedToMinute(UTCTimestamp(secondsSince1970: seconds))
                == UTCTimestamp(secondsSince1970: expected))
    }
}
