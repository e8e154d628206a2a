import CLibGPS
import TestSupport
import Testing

@testable import PetSpotGpsd

/// A TPV's `time` is read as libgps 3.22 reads it; gpsd's own form without
/// the C library's `strptime` (``GpsdReport/canonicalTime(_:)``), and
/// every other text by libgps itself.
@Suite("gpsd times: read as libgps reads them")
struct GpsdTimeTests {
    /// libgps's own reading: the oracle.
    static func libgps(_ text: String) -> (seconds: Int, nanoseconds: Int) {
        var copy = Array(text.utf8CString)
        let time = copy.withUnsafeMutableBufferPointer { iso8601_to_timespec($0.baseAddress!) }
        return (Int(time.tv_sec), Int(time.tv_nsec))
    }

    static func read(_ text: String) -> (seconds: Int, nanoseconds: Int) {
        Array(text.utf8).withUnsafeBytes { GpsdReport.libgpsTime($0) }
    }

    static func canonical(_ text: String) -> (seconds: Int, nanoseconds: Int)? {
        Array(text.utf8).withUnsafeBytes { GpsdReport.canonicalTime($0) }
    }

    @Test(
        arguments: [
            "1970-01-01T00:00:00Z", "2026-11-29T23:40:01.500Z", "2026-11-29T23:40:01.5Z", "2024-02-29T12:00:00.001Z",
            "2023-02-29T12:00:00Z", "2023-02-31T12:00:00Z", "2100-03-01T00:00:00.999999999Z", "2000-12-31T23:59:60Z",
            "9999-12-31T23:59:59.123456789Z", "2019-04-07T12:00:01.035Z", "2026-01-31T00:00:00.000000001Z",
        ])
    func gpsdsOwnFormIsReadAsLibgpsReadsIt(_ text: String) throws {
        let time = try #require(Self.canonical(text), "the short path reads gpsd's own form")
        #expect(time == Self.libgps(text))
    }

    @Test(
        arguments: [
            "1969-12-31T23:59:59Z", "2026-11-29T23:40:01.500", "2026-11-29T23:40:01.500z", "2026-11-29T23:40:01.Z",
            "2026-11-29T23:40:01.1234567890Z", "2026-11-29 23:40:01Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z",
            "2026-11-00T00:00:00Z", "2026-11-32T00:00:00Z", "2026-11-29T24:00:00Z", "2026-11-29T23:60:00Z",
            "2026-11-29T23:59:61Z", "2026-11-29T23:40:01+00:00", "2026-1-29T23:40:01Z", "+2026-11-29T23:40:01Z",
            "2026-11-29T23:40:01.5e3Z", "", "garbage",
        ])
    func anyOtherTextIsLibgpssToRead(_ text: String) {
        #expect(Self.canonical(text) == nil)
        #expect(Self.read(text) == Self.libgps(text))
    }

    /// Every field at random over its range, with fractions of one to nine digits.
    @Test func randomTimesAgreeWithLibgps() {
        var random = SplitMix(seed: 322)
        var differences: [String] = []
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        for _ in 0..<20_000 {
            var text = "\(Int.random(in: 1970...9999, using: &random))-\(two(Int.random(in: 1...12, using: &random)))"
            text += "-\(two(Int.random(in: 1...31, using: &random)))T\(two(Int.random(in: 0...23, using: &random)))"
            text += ":\(two(Int.random(in: 0...59, using: &random))):\(two(Int.random(in: 0...60, using: &random)))"
            let places = Int.random(in: 0...9, using: &random)
            if places > 0 {
                text += "."
                for _ in 0..<places { text += String(Int.random(in: 0...9, using: &random)) }
            }
            text += "Z"
            guard let time = Self.canonical(text) else {
                differences.append("not read: \(text)")
                continue
            }
            if time != Self.libgps(text), differences.count < 10 { differences.append(text) }
        }
        #expect(differences.isEmpty, "\(differences)")
    }
}
