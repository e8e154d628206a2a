import PetSpotFixHub
import PetSpotLocation
import PetSpotSettings
import Testing

@testable import PetSpotGpsd

@Suite("Mapping gpsd TPV reports to fixes")
struct GpsdReportTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var report: GpsdReport
        var expected: Expected
        var testDescription: String { name }
    }

    enum Expected: Sendable, Equatable {
        case fix(latitude: Double, longitude: Double, mode: FixMode)
        case noFix
        case rejected
    }

    static let cases: [Case] = [
        Case(
            name: "3D fix", report: GpsdReport(mode: 3, latitude: 52.2, longitude: 21.0),
            expected: .fix(latitude: 52.2, longitude: 21.0, mode: .threeD)),
        Case(
            name: "2D fix", report: GpsdReport(mode: 2, latitude: -33.68, longitude: 151.29),
            expected: .fix(latitude: -33.68, longitude: 151.29, mode: .twoD)),
        Case(
            name: "south-west (synthetic)", report: GpsdReport(mode: 3, latitude: -54.8, longitude: -68.3),
            expected: .fix(latitude: -54.8, longitude: -68.3, mode: .threeD)),
        Case(
            name: "bounds included", report: GpsdReport(mode: 2, latitude: 90, longitude: -180),
            expected: .fix(latitude: 90, longitude: -180, mode: .twoD)),
        Case(name: "mode 0", report: GpsdReport(mode: 0, latitude: 1, longitude: 1), expected: .noFix),
        Case(
            name: "mode 1 with stale coordinates", report: GpsdReport(mode: 1, latitude: 1, longitude: 1),
            expected: .noFix),
        Case(name: "unknown mode", report: GpsdReport(mode: 7, latitude: 1, longitude: 1), expected: .rejected),
        Case(name: "NaN latitude", report: GpsdReport(mode: 3, latitude: .nan, longitude: 1), expected: .rejected),
        Case(name: "NaN longitude", report: GpsdReport(mode: 3, latitude: 1, longitude: .nan), expected: .rejected),
        Case(
            name: "infinite latitude", report: GpsdReport(mode: 3, latitude: .infinity, longitude: 1),
            expected: .rejected),
        Case(
            name: "latitude 90.0001", report: GpsdReport(mode: 2, latitude: 90.0001, longitude: 1), expected: .rejected),
        Case(
            name: "longitude -180.5", report: GpsdReport(mode: 2, latitude: 1, longitude: -180.5), expected: .rejected),
    ]

    @Test(arguments: cases)
    func outcome(_ testCase: Case) {
        let outcome = testCase.report.outcome(receivedAt: .now)
        switch (outcome, testCase.expected) {
        case (.fix(let fix), .fix(let latitude, let longitude, let mode)):
            #expect(fix.coordinate == Coordinate(latitude: latitude, longitude: longitude))
            #expect(fix.mode == mode)
            #expect(fix.source == .gpsd)
        case (.noFix, .noFix), (.rejected, .rejected):
            break
        default:
            Issue.record("\(testCase.name): got \(outcome)")
        }
    }

    struct OptionalCase: Sendable, CustomTestStringConvertible {
        var name: String
        var report: GpsdReport
        var altitude: Double?
        var horizontal: Double?
        var vertical: Double?
        var speed: Double?
        var course: Double?
        var testDescription: String { name }
    }

    static let optionalCases: [OptionalCase] = [
        OptionalCase(
            name: "all known",
            report: GpsdReport(
                mode: 3, latitude: 1, longitude: 2, altitudeMSL: 176, eph: 39.9, epv: 62.1, speed: 1.5, track: 359),
            altitude: 176, horizontal: 39.9, vertical: 62.1, speed: 1.5, course: 359),
        OptionalCase(
            name: "all NaN", report: GpsdReport(mode: 3, latitude: 1, longitude: 2),
            altitude: nil, horizontal: nil, vertical: nil, speed: nil, course: nil),
        OptionalCase(
            name: "eph from epx/epy", report: GpsdReport(mode: 3, latitude: 1, longitude: 2, epx: 3, epy: 4),
            altitude: nil, horizontal: 5, vertical: nil, speed: nil, course: nil),
        OptionalCase(
            name: "only epy", report: GpsdReport(mode: 3, latitude: 1, longitude: 2, epx: .nan, epy: 4),
            altitude: nil, horizontal: 4, vertical: nil, speed: nil, course: nil),
        OptionalCase(
            name: "MSL from HAE and geoid",
            report: GpsdReport(mode: 3, latitude: 1, longitude: 2, altitudeHAE: 226.66, geoidSeparation: 50.66),
            altitude: 176, horizontal: nil, vertical: nil, speed: nil, course: nil),
        OptionalCase(
            name: "2D drops altitude", report: GpsdReport(mode: 2, latitude: 1, longitude: 2, altitudeMSL: 100, epv: 3),
            altitude: nil, horizontal: nil, vertical: nil, speed: nil, course: nil),
        OptionalCase(
            name: "impossible values",
            report: GpsdReport(
                mode: 3, latitude: 1, longitude: 2, altitudeMSL: .infinity, eph: -1, epv: .nan, speed: -2, track: 400),
            altitude: nil, horizontal: nil, vertical: nil, speed: nil, course: nil),
    ]

    @Test(arguments: optionalCases)
    func optionalFields(_ testCase: OptionalCase) throws {
        guard case .fix(let fix) = testCase.report.outcome(receivedAt: .now) else {
            Issue.record("not a fix")
            return
        }
        func close(_ a: Double?, _ b: Double?) -> Bool {
            switch (a, b) {
            case (nil, nil): true
            case (let x?, let y?): abs(x - y) < 1e-9
            default: false
            }
        }
        #expect(close(fix.altitude, testCase.altitude))
        #expect(close(fix.horizontalAccuracy, testCase.horizontal))
        #expect(close(fix.verticalAccuracy, testCase.vertical))
        #expect(close(fix.speed, testCase.speed))
        #expect(close(fix.course, testCase.course))
    }

    @Test func receiverTimeIsKeptButNotUsedForFreshness() {
        // 2034-11-03: like gpsd 3.22's 1024-week shift of a 2015 NMEA date.
        let received = ContinuousClock.now
        let report = GpsdReport(
            mode: 3, latitude: 1, longitude: 2, timeSeconds: 2_046_124_800, timeNanoseconds: 500_000_000)
        guard case .fix(let fix) = report.outcome(receivedAt: received) else {
            Issue.record("not a fix")
            return
        }
        #expect(fix.timestamp?.iso8601 == "2034-11-03T00:00:00.500Z")
        #expect(fix.receivedAt == received)
        #expect(!LocationRequest(maxAge: .seconds(1)).isAnswerable(from: fix, at: received + .seconds(2)))
        let noTime = GpsdReport(mode: 3, latitude: 1, longitude: 2)
        guard case .fix(let untimed) = noTime.outcome(receivedAt: received) else { return }
        #expect(untimed.timestamp == nil)
    }

    @Test func backoffDoublesUpToTheCap() {
        var backoff = ReconnectBackoff(initial: .milliseconds(250), cap: .seconds(1))
        #expect(
            [backoff.next(), backoff.next(), backoff.next(), backoff.next()]
                == [.milliseconds(250), .milliseconds(500), .seconds(1), .seconds(1)])
        backoff.reset()
        #expect(backoff.next() == .milliseconds(250))
    }

    @Test func settingsDefaults() {
        let settings = GpsdSettings(device: "")
        #expect(settings.host == "127.0.0.1")
        #expect(settings.port == 2947)
        #expect(settings.reconnectMax == .seconds(5))
        #expect(settings.silenceTimeout == .seconds(10))
        #expect(settings.owner == "gpsd")
        #expect(settings.device == nil, "an empty device means any device")
        var changed = GpsdSettings(device: "/dev/ttyACM0")
        #expect(changed.device == "/dev/ttyACM0")
        changed.device = ""
        #expect(changed.device == nil, "an empty device set later means any device too")
        #expect(GpsdFixProducer(settings: settings).initialReconnectDelay == .milliseconds(250))
    }
}
