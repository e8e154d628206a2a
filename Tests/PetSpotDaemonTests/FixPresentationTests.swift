import PetSpotDaemon
import PetSpotLocation
import PetSpotPolicy
import Testing

/// Reduced accuracy must not leak through what a presentation lets through
/// (hardening items 10 and 11).
@Suite struct FixPresentationTests {
    static let reduced = FixPresentation.reduced(cellMeters: 3000, updateInterval: .seconds(60))
    static let start = ContinuousClock.now

    static func fix(latitude: Double, at seconds: Double, accuracy: Double = 3) -> LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: 21.0122), horizontalAccuracy: accuracy,
            mode: .twoD, source: .gpsd, receivedAt: start + .milliseconds(Int(seconds * 1000)))
    }

    /// Item 10: a reduced watch's distanceFilter compares snapped cells, so a
    /// true move (here 200 m, inside one 3 km cell) is never revealed.
    @Test func item10_reducedDistanceFilterSeesOnlyCells() {
        let options = WatchOptions(distanceFilter: 100)
        let first = Self.reduced.apply(Self.fix(latitude: 52.2300, at: 0))
        let moved = Self.reduced.apply(Self.fix(latitude: 52.2318, at: 120))
        #expect(first.coordinate == moved.coordinate)
        #expect(!Self.reduced.shouldDeliver(moved, after: first, options: options))
        // The same move is delivered to a full-accuracy watcher.
        let fullFirst = Self.fix(latitude: 52.2300, at: 0)
        let fullMoved = Self.fix(latitude: 52.2318, at: 120)
        #expect(FixPresentation.full.shouldDeliver(fullMoved, after: fullFirst, options: options))
        // A move to another cell is delivered once the throttle allows.
        let far = Self.reduced.apply(Self.fix(latitude: 52.30, at: 120))
        #expect(Self.reduced.shouldDeliver(far, after: first, options: options))
    }

    /// Item 10: at most one reduced update per `reduced_update_interval`,
    /// whatever interval the watch asked for.
    @Test(arguments: [nil, 0.1, 5.0] as [Double?])
    func item10_reducedWatchIsThrottled(asked: Double?) {
        let options = WatchOptions(interval: asked.map(Duration.fromSeconds))
        let first = Self.reduced.apply(Self.fix(latitude: 52.2300, at: 0))
        let soon = Self.reduced.apply(Self.fix(latitude: 52.40, at: 59.9))
        let later = Self.reduced.apply(Self.fix(latitude: 52.40, at: 60))
        #expect(!Self.reduced.shouldDeliver(soon, after: first, options: options))
        #expect(Self.reduced.shouldDeliver(later, after: first, options: options))
        #expect(FixPresentation.full.shouldDeliver(Self.fix(latitude: 52.4, at: 5.5), after: first, options: options))
    }

    /// Item 11: a reduced client's desiredAccuracy is ignored; a full client's is kept.
    @Test func item11_reducedRequestIgnoresDesiredAccuracy() {
        let request = LocationRequest(desiredAccuracy: 5)
        #expect(Self.reduced.serving(request).desiredAccuracy == nil)
        #expect(FixPresentation.full.serving(request).desiredAccuracy == 5)
    }
}
