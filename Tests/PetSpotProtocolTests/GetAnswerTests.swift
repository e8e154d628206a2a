import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import Testing

@Suite("GetAnswer: a location.get answer spliced from one serialization")
struct GetAnswerTests {
    static let received = ContinuousClock.now

    static let fixes: [LocationFix] = [
        LocationFix(
            coordinate: Coordinate(latitude: 52.2297, longitude: 21.0122), altitude: 110, horizontalAccuracy: 4.5,
            verticalAccuracy: 12, speed: 1.4, course: 90, timestamp: UTCTimestamp(secondsSince1970: 1_700_000_000.25),
            mode: .threeD, source: .gpsd, receivedAt: received),
        LocationFix(
            coordinate: Coordinate(latitude: -33.8688, longitude: 151.2093), horizontalAccuracy: 30, mode: .twoD,
            source: .static, receivedAt: received, accuracy: .reduced),
    ]

    static let ids: [JSONValue] = [
        .number(7), .number(0), .number(-12), .number(999_999_999_999_999), .number(1e15), .number(2.5),
        .string("g"), .string("quote \" and \\ and \u{1}"), .null,
    ]

    @Test func theBytesAreThoseOfTheGeneralSerializer() {
        for fix in Self.fixes {
            let answer = GetAnswer(fix: fix)
            for id in Self.ids {
                for elapsed in [Duration.zero, .milliseconds(1234), .seconds(86_400)] {
                    let now = Self.received + elapsed
                    let expected = Array(
                        RPCCodec.line(RPCCodec.response(id: id, result: WireCoding.encode(fix, at: now))).utf8)
                    #expect(answer.line(id: id, at: now) == expected, "\(id)")
                    #expect(answer.typicalLineLength >= expected.count || id.typeName == "string")
                }
            }
        }
    }
}
