import PetSpotLocation
import Testing

private let start = ContinuousClock.now

private func fix(at offset: Duration, north metres: Double) -> LocationFix {
    LocationFix(
        coordinate: Coordinate(latitude: 52 + metres / 111_195, longitude: 21), mode: .threeD, source: .gpsd,
        receivedAt: start + offset)
}

/// The one per-watcher rule (the daemon's fan-out, `PositionSource.updates`, the mock).
@Suite struct WatchFilterTests {
    @Test func passesWhatTheOptionsTakeAndMeasuresFromTheLastPassed() {
        var filter = WatchFilter(WatchOptions(distanceFilter: 100, interval: .seconds(1)))
        let c = fix(at: .seconds(3), north: 120)
        // The first always; far but too soon; late but too close; then C, 120 m
        // from the last passed fix (only 60 m from the one before): measured from the passed one.
        let script = [
            fix(at: .zero, north: 0), fix(at: .milliseconds(500), north: 500), fix(at: .seconds(2), north: 60), c,
        ]
        let passed = script.map { filter.pass($0) }
        #expect(passed == [true, false, false, true])
        #expect(filter.lastDelivered == DeliveredPosition(c))
        #expect(filter.lastDelivered?.receivedAt == c.receivedAt)
    }

    @Test func admitsChangesNothing() {
        let filter = WatchFilter(WatchOptions())
        #expect(filter.admits(fix(at: .zero, north: 0)))
        #expect(filter.lastDelivered == nil)
    }

    /// A minimum interval (a reduced watch's) raises a shorter `interval`, never lowers a longer one.
    @Test func minimumIntervalThrottles() {
        let last = fix(at: .zero, north: 0)
        let soon = fix(at: .seconds(2), north: 0)
        #expect(WatchFilter(WatchOptions(), lastDelivered: last).admits(soon))
        #expect(!WatchFilter(WatchOptions(), lastDelivered: last).admits(soon, minimumInterval: .seconds(5)))
        #expect(
            !WatchFilter(WatchOptions(interval: .seconds(10)), lastDelivered: last)
                .admits(fix(at: .seconds(6), north: 0), minimumInterval: .seconds(5)))
        #expect(
            WatchFilter(WatchOptions(interval: .seconds(1)), lastDelivered: last)
                .admits(fix(at: .seconds(5), north: 0), minimumInterval: .seconds(5)))
    }
}
