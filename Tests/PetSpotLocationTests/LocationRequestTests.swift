import PetSpotLocation
import Testing

private let origin = ContinuousClock.now

private func fix(
    at offset: Duration = .zero, latitude: Double = 52, longitude: Double = 21, accuracy: Double? = nil,
    mode: FixMode = .threeD
) -> LocationFix {
    LocationFix(
        coordinate: Coordinate(latitude: latitude, longitude: longitude), horizontalAccuracy: accuracy, mode: mode,
        source: .gpsd, receivedAt: origin + offset)
}

@Suite struct LocationRequestTests {
    @Test func defaults() {
        let request = LocationRequest()
        #expect(request.maxAge == .seconds(5))
        #expect(request.timeout == .seconds(10))
        #expect(request.minMode == nil)
        #expect(request.desiredAccuracy == nil)
    }

    @Test func timeoutIsCappedAt300Seconds() {
        #expect(LocationRequest(timeout: .seconds(301)).timeout == .seconds(300))
        #expect(LocationRequest(timeout: .seconds(300)).timeout == .seconds(300))
        #expect(LocationRequest(timeout: .seconds(299)).timeout == .seconds(299))
    }

    @Test(arguments: [
        (Duration.zero, true), (.seconds(4), true), (.seconds(5), true), (.milliseconds(5001), false),
        (.seconds(60), false),
    ])
    func answerableWithinMaxAge(age: Duration, expected: Bool) {
        let request = LocationRequest(maxAge: .seconds(5))
        #expect(request.isAnswerable(from: fix(), at: origin + age) == expected)
    }

    @Test(arguments: [
        (FixMode?.none, FixMode.twoD, true), (.twoD, .twoD, true), (.twoD, .threeD, true), (.threeD, .twoD, false),
        (.threeD, .threeD, true),
    ])
    func minModeAccepts(minMode: FixMode?, mode: FixMode, expected: Bool) {
        let request = LocationRequest(minMode: minMode)
        #expect(request.accepts(fix(mode: mode)) == expected)
        #expect(request.isAnswerable(from: fix(mode: mode), at: origin) == expected)
    }

    @Test(arguments: [
        (Double?.none, Double?.none, true), (nil, 500, true), (10, nil, false), (10, 10, true), (10, 9.5, true),
        (10, 10.01, false), (10, 0, true),
    ])
    func goodEnough(desired: Double?, accuracy: Double?, expected: Bool) {
        let request = LocationRequest(desiredAccuracy: desired)
        #expect(request.isGoodEnough(fix(accuracy: accuracy)) == expected)
        #expect(request.isAnswerable(from: fix(accuracy: accuracy), at: origin) == expected)
    }

    @Test func betterPrefersAccuracyThenKnownThenNewer() {
        let coarse = fix(at: .seconds(1), accuracy: 50)
        let fine = fix(at: .seconds(2), accuracy: 5)
        let unknown = fix(at: .seconds(3), accuracy: nil)
        let unknownLater = fix(at: .seconds(4), accuracy: nil)
        let fineLater = fix(at: .seconds(5), accuracy: 5)

        #expect(LocationRequest.better(nil, coarse) == coarse)
        #expect(LocationRequest.better(coarse, fine) == fine)
        #expect(LocationRequest.better(fine, coarse) == fine)
        #expect(LocationRequest.better(fine, unknown) == fine)
        #expect(LocationRequest.better(unknown, coarse) == coarse)
        #expect(LocationRequest.better(unknown, unknownLater) == unknownLater)
        #expect(LocationRequest.better(fine, fineLater) == fineLater)
    }
}

@Suite struct WatchOptionsTests {
    @Test func firstFixIsAlwaysDelivered() {
        #expect(WatchOptions(distanceFilter: 1_000, interval: .seconds(60)).shouldDeliver(fix(), after: nil))
    }

    @Test func noFiltersDeliverEverything() {
        #expect(WatchOptions().shouldDeliver(fix(), after: fix()))
    }

    @Test(arguments: [
        (Duration.zero, false), (.milliseconds(500), false), (.milliseconds(999), false), (.seconds(1), true),
        (.seconds(3), true),
    ])
    func interval(gap: Duration, expected: Bool) {
        let options = WatchOptions(interval: .seconds(1))
        #expect(options.shouldDeliver(fix(at: gap), after: fix()) == expected)
    }

    /// 0.0009 degrees of latitude is about 100 m.
    @Test(arguments: [(0.0, false), (0.0004, false), (0.00085, false), (0.00095, true), (0.01, true)])
    func distance(northBy degrees: Double, expected: Bool) {
        let options = WatchOptions(distanceFilter: 100)
        let moved = fix(at: .seconds(10), latitude: 52 + degrees)
        #expect(options.shouldDeliver(moved, after: fix()) == expected)
    }

    @Test func bothFiltersMustPass() {
        let options = WatchOptions(distanceFilter: 100, interval: .seconds(1))
        let last = fix()
        #expect(!options.shouldDeliver(fix(at: .milliseconds(500), latitude: 53), after: last))  // far, too soon
        #expect(!options.shouldDeliver(fix(at: .seconds(5), latitude: 52.0001), after: last))  // late, too close
        #expect(options.shouldDeliver(fix(at: .seconds(5), latitude: 53), after: last))
    }
}
