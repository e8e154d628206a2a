import PetSpotJSON
import PetSpotLocation
@testable import PetSpotProtocol
import Testing

@Suite("location.update lines spliced from one serialization")
struct UpdateNotificationTests {
    static let now = ContinuousClock.now

    static let fixes: [LocationFix] = [
        LocationFix(
            coordinate: Coordinate(latitude: 52.2297, longitude: 21.0122), mode: .twoD, source: .static,
            receivedAt: now),
        LocationFix(
            coordinate: Coordinate(latitude: -37.8136, longitude: 144.9631), altitude: 31.5, horizontalAccuracy: 4.2,
            verticalAccuracy: 7, speed: 1.25, course: 271.5,
            timestamp: UTCTimestamp(iso8601: "2026-11-22T05:00:00.125Z"), mode: .threeD, source: .gpsd,
            receivedAt: now - .milliseconds(1500), accuracy: .reduced),
        LocationFix(
            coordinate: Coordinate(latitude: -90, longitude: 180), speed: 0, mode: .twoD, source: .simulated,
            receivedAt: now - .seconds(86_400 * 3)),
        // Non-finite optionals are left out, as the dictionary's serializer leaves them out.
        LocationFix(
            coordinate: Coordinate(latitude: 0.1 + 0.2, longitude: -1e-7), altitude: .nan,
            horizontalAccuracy: .infinity, verticalAccuracy: 1e300, speed: -.infinity, course: 0,
            timestamp: UTCTimestamp(iso8601: "2026-11-22T05:00:00Z"), mode: .threeD, source: .gpsd, receivedAt: now),
    ]

    @Test("bytes equal the message serialized whole", arguments: fixes, [0, 1, 7, 32, 123_456, 1_000_000_000])
    func matchesTheSerializer(fix: LocationFix, subscription: Int) throws {
        let notification = UpdateNotification(fix: fix)
        let spliced = notification.line(subscription: subscription, at: Self.now)
        // Stamped for a pass at the same instant: the same bytes, whenever written.
        let stamped = notification.stamped(at: Self.now).line(subscription: subscription, at: Self.now + .seconds(9))
        #expect(stamped == spliced)
        let whole = RPCCodec.line(
            RPCCodec.notification(
                method: "location.update",
                params: ["subscription": .number(Double(subscription)), "fix": WireCoding.encode(fix, at: Self.now)]))
        #expect(String(decoding: spliced, as: UTF8.self) == whole)
        #expect(notification.maximumLineLength >= spliced.count)
        #expect(
            notification.message(subscription: subscription, at: Self.now)
                == (try JSONValue.parse(bytes: whole.utf8.dropLast())))
    }

    /// The age is written from integer milliseconds, not by the float
    /// printer: the same text as the serializer's, for every millisecond of
    /// the first 100 s, then sampled up to and past where the printer takes over.
    @Test func theAgeIsWrittenAsTheSerializerWritesIt() {
        var ages = Array(Int64(0)..<100_000)
        var large: Int64 = 100_000
        while large < 10_000_000_000_000 {
            ages += [large - 1, large, large + 1, large + 7, large * 3 + 250]
            large = large * 10 + 13
        }
        let mismatches = ages.filter { milliseconds in
            var written: [UInt8] = []
            SplicedFix.writeAge(milliseconds: milliseconds) { written += $0 }
            return String(decoding: written, as: UTF8.self) != JSONValue.format(Double(milliseconds) / 1000)
        }
        #expect(mismatches.isEmpty, "first: \(mismatches.prefix(5))")
    }

    @Test func theAgeIsMeasuredWhenEachLineIsWritten() throws {
        let fix = Self.fixes[0]
        let notification = UpdateNotification(fix: fix)
        let later = String(
            decoding: notification.line(subscription: 1, at: Self.now + .milliseconds(2250)), as: UTF8.self)
        #expect(later.contains(#""age":2.25,"#))
        #expect(later.hasSuffix(#","subscription":1}}"# + "\n"))
        // Unstamped again, a line measures its age when written.
        let unstamped = notification.stamped(at: Self.now).unstamped
        let again = String(decoding: unstamped.line(subscription: 1, at: Self.now + .milliseconds(500)), as: UTF8.self)
        #expect(again.contains(#""age":0.5,"#))
    }
}
