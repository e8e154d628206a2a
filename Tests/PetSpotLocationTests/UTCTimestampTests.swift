import PetSpotLocation
import Testing

@Suite struct UTCTimestampTests {
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"),
        (1_554_638_401.5, "2019-04-07T12:00:01.500Z"),
        (1_554_638_401.25, "2019-04-07T12:00:01.250Z"),
        (951_782_400, "2000-02-29T00:00:00Z"),  // leap day of a year divisible by 400
        (1_583_020_799, "2020-02-29T23:59:59Z"),
        (4_107_499_200, "2100-02-28T12:00:00Z"),  // 2100 is not a leap year...
        (4_107_542_400, "2100-03-01T00:00:00Z"),  // ...so 28 February is followed by 1 March
        (-1, "1969-12-31T23:59:59Z"),
        (-86_399.75, "1969-12-31T00:00:00.250Z"),
        (-0.5, "1969-12-31T23:59:59.500Z"),
        (-2_208_988_800, "1900-01-01T00:00:00Z"),
        (-11_670_998_400, "1600-02-29T00:00:00Z"),
    ])
    func formatsAndParses(seconds: Double, text: String) throws {
        #expect(UTCTimestamp(secondsSince1970: seconds).iso8601 == text)
        #expect(UTCTimestamp(secondsSince1970: seconds).description == text)
        let parsed = try #require(UTCTimestamp(iso8601: text))
        #expect(parsed.secondsSince1970 == seconds)
    }

    /// Every millisecond value survives text → value → text, also before 1970.
    @Test(arguments: ["1970-01-01T00:00:00", "2019-04-07T12:00:01", "1969-12-31T23:59:59", "2024-02-29T08:30:00"])
    func millisecondsRoundTrip(prefix: String) throws {
        var failures: [String] = []
        for millis in 1..<1000 {
            let digits = String(millis)
            let text = "\(prefix).\(String(repeating: "0", count: 3 - digits.count))\(digits)Z"
            let parsed = try #require(UTCTimestamp(iso8601: text))
            if parsed.iso8601 != text { failures.append("\(text) → \(parsed.iso8601)") }
        }
        #expect(failures.isEmpty, "\(failures.count) failures, e.g. \(failures.prefix(3))")
    }

    /// The bytes a serializer appends are the text's, past year 9999 and before year 0 too.
    @Test(arguments: [0.0, 1_554_638_401.5, -0.5, 253_402_300_799.999, 253_402_300_800, -62_167_219_201])
    func appendedBytesAreTheText(seconds: Double) {
        let timestamp = UTCTimestamp(secondsSince1970: seconds)
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        timestamp.appendISO8601(to: &bytes)
        #expect(bytes == [UInt8(ascii: "[")] + Array(timestamp.iso8601.utf8))
    }

    @Test func yearsPastFourDigits() {
        #expect(UTCTimestamp(secondsSince1970: 253_402_300_800).iso8601 == "10000-01-01T00:00:00Z")
        #expect(UTCTimestamp(secondsSince1970: 253_402_300_799.5).iso8601 == "9999-12-31T23:59:59.500Z")
    }

    @Test func fractionOfAnyLengthIsParsed() throws {
        #expect(try #require(UTCTimestamp(iso8601: "2019-04-07T12:00:01.5Z")).iso8601 == "2019-04-07T12:00:01.500Z")
        #expect(
            try #require(UTCTimestamp(iso8601: "2019-04-07T12:00:01.123456Z")).iso8601 == "2019-04-07T12:00:01.123Z")
        #expect(try #require(UTCTimestamp(iso8601: "2019-04-07T12:00:01.000Z")).iso8601 == "2019-04-07T12:00:01Z")
    }

    @Test func ordering() throws {
        let earlier = try #require(UTCTimestamp(iso8601: "1969-12-31T23:59:59Z"))
        let later = try #require(UTCTimestamp(iso8601: "1970-01-01T00:00:00.001Z"))
        #expect(earlier < later)
        #expect(!(later < earlier))
    }

    @Test(arguments: [
        "", "2019-04-07", "2019-04-07T12:00:01", "2019-04-07T12:00:01z", "2019-04-07 12:00:01Z",
        "2019-04-07T12:00:01+02:00", "2019-04-07T12:00:01.Z", "2019-04-07T12:00:01.5xZ", "2019-4-07T12:00:01Z",
        "2019-04-7T12:00:01Z", "2019/04/07T12:00:01Z", "2019-13-07T12:00:01Z", "2019-00-07T12:00:01Z",
        "2019-04-00T12:00:01Z", "2019-04-32T12:00:01Z", "2019-04-07T24:00:00Z", "2019-04-07T12:60:00Z",
        "2019-04-07T12:00:61Z", "abcd-ef-ghTij:kl:mnZ", "2019-04-07T12:00:01ZZ", " 2019-04-07T12:00:01Z",
        "2019-02-29T00:00:00Z",  // not a leap year
        "2019-04-31T00:00:00Z",  // April has 30 days
        "2100-02-29T00:00:00Z",  // divisible by 100, not by 400
        "2024-02-30T00:00:00Z",
    ])
    func invalidTextIsRefused(text: String) {
        #expect(UTCTimestamp(iso8601: text) == nil, "\(text) was accepted")
    }

    @Test(arguments: ["2024-02-29T00:00:00Z", "2000-02-29T00:00:00Z", "2019-01-31T00:00:00Z", "2019-12-31T23:59:60Z"])
    func validCalendarEdgesAreAccepted(text: String) {
        #expect(UTCTimestamp(iso8601: text) != nil, "\(text) was refused")
    }
}
