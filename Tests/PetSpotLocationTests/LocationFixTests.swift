import PetSpotLocation
import Testing

private func makeFix(
    latitude: Double = 52.2297, longitude: Double = 21.0122, altitude: Double? = 110,
    horizontalAccuracy: Double? = 8, verticalAccuracy: Double? = 12, speed: Double? = 1.5, course: Double? = 90,
    mode: FixMode = .threeD
) -> LocationFix {
    LocationFix(
        coordinate: Coordinate(latitude: latitude, longitude: longitude), altitude: altitude,
        horizontalAccuracy: horizontalAccuracy, verticalAccuracy: verticalAccuracy, speed: speed, course: course,
        timestamp: UTCTimestamp(secondsSince1970: 1_554_638_401.5), mode: mode, source: .gpsd)
}

@Suite struct SanitizedTests {
    @Test func validFixIsUnchanged() {
        let fix = makeFix()
        #expect(fix.sanitized() == fix)
    }

    @Test(arguments: [
        (Double.nan, 21.0), (91.0, 21.0), (-90.000_000_1, 21.0), (52.0, .infinity), (52.0, 180.000_000_1),
        (-.infinity, -.infinity),
    ])
    func invalidCoordinateIsDropped(latitude: Double, longitude: Double) {
        #expect(makeFix(latitude: latitude, longitude: longitude).sanitized() == nil)
    }

    /// A field, a value it may not keep, and how to read it back.
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var apply: @Sendable (inout LocationFix) -> Void
        var read: @Sendable (LocationFix) -> Double?
    }

    static let removed: [Case] = [
        Case(description: "altitude NaN", apply: { $0.altitude = .nan }, read: { $0.altitude }),
        Case(description: "altitude +inf", apply: { $0.altitude = .infinity }, read: { $0.altitude }),
        Case(
            description: "horizontalAccuracy NaN", apply: { $0.horizontalAccuracy = .nan },
            read: { $0.horizontalAccuracy }),
        Case(
            description: "horizontalAccuracy -1", apply: { $0.horizontalAccuracy = -1 },
            read: { $0.horizontalAccuracy }),
        Case(
            description: "horizontalAccuracy inf", apply: { $0.horizontalAccuracy = .infinity },
            read: { $0.horizontalAccuracy }),
        Case(
            description: "verticalAccuracy -0.5", apply: { $0.verticalAccuracy = -0.5 },
            read: { $0.verticalAccuracy }),
        Case(
            description: "verticalAccuracy -inf", apply: { $0.verticalAccuracy = -.infinity },
            read: { $0.verticalAccuracy }),
        Case(description: "speed NaN", apply: { $0.speed = .nan }, read: { $0.speed }),
        Case(description: "speed -3", apply: { $0.speed = -3 }, read: { $0.speed }),
        Case(description: "course NaN", apply: { $0.course = .nan }, read: { $0.course }),
        Case(description: "course 360.5", apply: { $0.course = 360.5 }, read: { $0.course }),
        Case(description: "course -1", apply: { $0.course = -1 }, read: { $0.course }),
    ]

    @Test(arguments: removed)
    func impossibleOptionalValueIsRemoved(_ testCase: Case) throws {
        var fix = makeFix()
        testCase.apply(&fix)
        let clean = try #require(fix.sanitized())
        #expect(testCase.read(clean) == nil)
        // Only that field is touched: restoring it gives the original fix back.
        var restored = clean
        let original = makeFix()
        restored.altitude = restored.altitude ?? original.altitude
        restored.horizontalAccuracy = restored.horizontalAccuracy ?? original.horizontalAccuracy
        restored.verticalAccuracy = restored.verticalAccuracy ?? original.verticalAccuracy
        restored.speed = restored.speed ?? original.speed
        restored.course = restored.course ?? original.course
        restored.receivedAt = original.receivedAt
        #expect(restored == original)
    }

    @Test(arguments: [0.0, 360.0, 180.0])
    func courseBoundsAreKept(course: Double) throws {
        #expect(try #require(makeFix(course: course).sanitized()).course == course)
    }

    @Test func zeroAccuraciesAndSpeedAreKept() throws {
        let clean = try #require(makeFix(horizontalAccuracy: 0, verticalAccuracy: 0, speed: 0).sanitized())
        #expect(clean.horizontalAccuracy == 0)
        #expect(clean.verticalAccuracy == 0)
        #expect(clean.speed == 0)
    }

    @Test func twoDimensionalFixLosesAltitudeAndVerticalAccuracy() throws {
        let clean = try #require(makeFix(altitude: 110, verticalAccuracy: 12, mode: .twoD).sanitized())
        #expect(clean.altitude == nil)
        #expect(clean.verticalAccuracy == nil)
        #expect(clean.horizontalAccuracy == 8)
        #expect(clean.speed == 1.5)
        #expect(clean.course == 90)
        #expect(clean.mode == .twoD)
    }
}

@Suite struct FixAgeTests {
    @Test func ageIsMeasuredFromReceipt() {
        let now = ContinuousClock.now
        let fix = LocationFix(
            coordinate: Coordinate(latitude: 1, longitude: 2), mode: .twoD, source: .simulated,
            receivedAt: now - .milliseconds(2500))
        #expect(fix.age(at: now) == 2.5)
        #expect(fix.age(at: now + .seconds(1)) == 3.5)
    }

    @Test func ageIsNeverNegative() {
        let now = ContinuousClock.now
        let fix = LocationFix(
            coordinate: Coordinate(latitude: 1, longitude: 2), mode: .twoD, source: .simulated,
            receivedAt: now + .seconds(3))
        #expect(fix.age(at: now) == 0)
    }

    @Test(arguments: [
        (1.5, Duration.milliseconds(1500)), (0.0, .zero), (-2.0, .zero), (Double.nan, .zero),
        (Double.infinity, .zero), (300.0, .seconds(300)), (0.001, .milliseconds(1)),
    ])
    func durationFromSeconds(seconds: Double, expected: Duration) {
        #expect(Duration.fromSeconds(seconds) == expected)
    }

    @Test func durationSeconds() {
        #expect(Duration.milliseconds(2500).seconds == 2.5)
        #expect(Duration.seconds(-3).seconds == -3)
    }
}

@Suite struct LocationErrorTests {
    @Test(arguments: [
        (LocationError.notDetermined, "notDetermined"), (.denied, "denied"), (.restricted, "restricted"),
        (.locationUnknown, "locationUnknown"), (.sourceUnavailable, "sourceUnavailable"),
        (.promptUnavailable, "promptUnavailable"), (.forbidden, "forbidden"), (.tooManyClients, "tooManyClients"),
        (.daemonUnreachable("x"), "daemonUnreachable"), (.invalidRequest("x"), "invalidRequest"),
        (.internalError("x"), "internalError"),
    ])
    func reasons(error: LocationError, reason: String) {
        #expect(error.reason == reason)
    }

    @Test(arguments: [
        (AuthorizationStatus.notDetermined, LocationError?.some(.notDetermined)), (.denied, .denied),
        (.restricted, .restricted), (.authorized, nil),
    ])
    func refusingStatus(status: AuthorizationStatus, expected: LocationError?) {
        #expect(LocationError(refusing: status) == expected)
    }
}

@Suite struct AuthorizationStateTests {
    @Test(arguments: [AuthorizationStatus.notDetermined, .denied, .restricted])
    func accuracyOnlyWhenAuthorized(status: AuthorizationStatus) {
        #expect(AuthorizationState(status: status, accuracy: .full, decidedBy: .rule).accuracy == nil)
    }

    @Test func authorizedDefaultsToFull() {
        #expect(AuthorizationState(status: .authorized, decidedBy: .rule).accuracy == .full)
        #expect(AuthorizationState(status: .authorized, accuracy: .reduced, decidedBy: .rule).accuracy == .reduced)
        #expect(AuthorizationState.alwaysAuthorized.status == .authorized)
        #expect(AuthorizationState.alwaysAuthorized.accuracy == .full)
    }
}
