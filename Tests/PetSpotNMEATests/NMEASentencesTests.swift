import PetSpotLocation
import PetSpotNMEA
import Testing

/// Sentences a receiver would send: checksummed, fields where NMEA 0183
/// puts them, positions to 1/10 000 minute, an HDOP that never claims
/// better than the fix's accuracy.
@Suite struct NMEASentencesTests {
    /// 2026-11-25T12:34:56.780Z.
    static let time = UTCTimestamp(secondsSince1970: 1_795_610_096.78)

    static func fix(
        _ latitude: Double, _ longitude: Double, accuracy: Double? = 4, altitude: Double? = nil, mode: FixMode = .twoD,
        speed: Double? = nil, course: Double? = nil
    ) -> LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: longitude), altitude: altitude,
            horizontalAccuracy: accuracy, speed: speed, course: course, timestamp: time, mode: mode, source: .gpsd)
    }

    /// A sentence's fields, its checksum checked.
    static func fields(_ sentence: String) throws -> [String] {
        #expect(sentence.utf8.first == UInt8(ascii: "$") && sentence.utf8.suffix(2).elementsEqual("\r\n".utf8))
        let body = try #require(String(sentence.utf8.dropFirst().dropLast(2)))
        let star = try #require(body.lastIndex(of: "*"))
        let payload = body[..<star]
        let checksum = payload.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        #expect(UInt8(body[body.index(after: star)...], radix: 16) == checksum, "\(sentence)")
        return payload.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }

    @Test func ggaRmcAndGsaForA3DFixInTheNorthEast() throws {
        let sentences = NMEASentences.sentences(
            for: Self.fix(52.2297, 21.0122, accuracy: 4, altitude: 110.25, mode: .threeD, speed: 1.5, course: 271.26),
            now: UTCTimestamp(secondsSince1970: 0))
        try #require(sentences.count == 3)
        let gga = try Self.fields(sentences[0])
        #expect(gga.count == 15)  // GeoClue wants at least 14
        #expect(gga[0] == "GPGGA" && gga[1] == "123456.78")
        #expect(gga[2] == "5213.7820" && gga[3] == "N" && gga[4] == "02100.7320" && gga[5] == "E")
        #expect(gga[6] == "1" && gga[8] == "10.0" && gga[9] == "110.3" && gga[10] == "M")
        let rmc = try Self.fields(sentences[1])
        #expect(rmc[0] == "GPRMC" && rmc[1] == "123456.78" && rmc[2] == "A")
        #expect(rmc[3] == "5213.7820" && rmc[5] == "02100.7320")
        #expect(rmc[7] == "2.92" && rmc[8] == "271.3" && rmc[9] == "251126" && rmc[12] == "A")
        let gsa = try Self.fields(sentences[2])
        #expect(gsa.count == 18 && gsa[0] == "GPGSA" && gsa[2] == "3" && gsa[16] == "10.0")
    }

    @Test func southernAndWesternHemispheresAndA2DFix() throws {
        let sentences = NMEASentences.sentences(
            for: Self.fix(-33.8688, -151.2093, accuracy: nil), now: UTCTimestamp(secondsSince1970: 0))
        let gga = try Self.fields(sentences[0])
        #expect(gga[2] == "3352.1280" && gga[3] == "S" && gga[4] == "15112.5580" && gga[5] == "W")
        #expect(gga[8] == "99.9")  // unknown accuracy: the worst
        #expect(gga[9] == "")  // 2D: no altitude
        #expect(try Self.fields(sentences[2])[2] == "2")
        let rmc = try Self.fields(sentences[1])
        #expect(rmc[7] == "" && rmc[8] == "")  // no speed, no course
    }

    @Test func minutesNeverRoundUpToSixty() throws {
        // 59.99999 minutes rounds to the next whole degree, not to "60.0000".
        let gga = try Self.fields(
            NMEASentences.sentences(for: Self.fix(10.999_999_9, 0.0), now: UTCTimestamp(secondsSince1970: 0))[0])
        #expect(gga[2] == "1100.0000")
        #expect(gga[4] == "00000.0000" && gga[5] == "E")
    }

    @Test(arguments: [
        (0.0, "1.0"), (0.5, "2.0"), (1.0, "2.0"), (3.0, "5.0"), (4.0, "10.0"), (50.0, "10.0"), (51.0, "20.0"),
        (100.0, "20.0"), (101.0, "99.9"), (3000.0, "99.9"),
    ])
    func hdopNeverClaimsBetterThanTheAccuracy(accuracy: Double, hdop: String) {
        #expect(NMEASentences.hdop(forAccuracy: accuracy) == hdop)
    }

    @Test func aFixWithoutReceiverTimeIsStampedNow() throws {
        var fix = Self.fix(1, 2)
        fix.timestamp = nil
        let rmc = try Self.fields(NMEASentences.sentences(for: fix, now: Self.time)[1])
        #expect(rmc[1] == "123456.78" && rmc[9] == "251126")
    }
}
