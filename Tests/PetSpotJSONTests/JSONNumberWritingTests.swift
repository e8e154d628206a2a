@testable import PetSpotJSON
import TestSupport
import Testing

/// ``JSONNumber/write(_:utf8:)`` writes exactly the text the serializer
/// always wrote (integral values below 10¹⁵ as integers, `null` for
/// non-finite values, Swift's own shortest text otherwise), whether its
/// short-decimal path or Swift's printer produced it.
@Suite("JSON numbers: written as Swift prints them")
struct JSONNumberWritingTests {
    /// The serializer's text before the short-decimal path: the oracle.
    static func swiftText(_ value: Double) -> String {
        guard value.isFinite else { return "null" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    static func written(_ value: Double) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "[")]  // appends, never replaces
        JSONNumber.write(value, utf8: &bytes)
        #expect(bytes.first == UInt8(ascii: "["))
        return String(decoding: bytes.dropFirst(), as: UTF8.self)
    }

    static let edgeValues: [Double] = [
        0.0, -0.0, 1, -1, 0.1, 0.2, 0.1 + 0.2, 0.5, -0.5, 52.2297, -37.8136, 175.31, 359.99999999999994,
        1e-4, (1e-4).nextDown, (1e-4).nextUp, 9.999e-5, 1e15, (1e15).nextDown, (1e15).nextUp, 1e15 + 0.5,
        999_999_999_999_999.9, 123_456_789_012_345.6, 9_007_199_254_740_992, 1e16 + 2, 0.001, 0.000_123_4,
        .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity,
        -.infinity, .nan, 2.5, 0.05, 1.005, 2.675, 1.0 / 3, 2.0 / 3, 100.0 / 7, 0.3, 0.7, 4.35, 8.875e-4,
    ]

    @Test(arguments: edgeValues)
    func edges(_ value: Double) {
        #expect(Self.written(value) == Self.swiftText(value), "\(value.bitPattern)")
    }

    /// What gpsd writes: decimals of one to fifteen places, at every magnitude a fix's members reach.
    @Test func shortDecimalsAsGpsdWritesThem() {
        var random = SplitMix(seed: 40)
        var differences: [String] = []
        for _ in 0..<200_000 {
            let places = Int.random(in: 1...15, using: &random)
            let wholeDigits = Int.random(in: 0...(15 - min(places, 14)), using: &random)
            var text = Int.random(in: 0...1, using: &random) == 0 ? "" : "-"
            text +=
                wholeDigits == 0 ? "0" : String(UInt64.random(in: 1...UInt64(pow10(wholeDigits) - 1), using: &random))
            text += "."
            for _ in 0..<places { text += String(Int.random(in: 0...9, using: &random)) }
            guard let value = Double(text) else { continue }
            if Self.written(value) != Self.swiftText(value), differences.count < 10 { differences.append(text) }
        }
        #expect(differences.isEmpty, "written unlike Swift: \(differences)")
    }

    /// Every bit pattern is fair game: uniform over the exponents around the fast path's range.
    @Test func anyDoubleInAndAroundTheRange() {
        var random = SplitMix(seed: 1_000_000_007)
        var differences: [UInt64] = []
        for _ in 0..<200_000 {
            let exponent = UInt64.random(in: (1023 - 20)...(1023 + 60), using: &random)
            let bits =
                (UInt64.random(in: 0...1, using: &random) << 63) | (exponent << 52)
                | (random.next() & ((1 << 52) - 1))
            let value = Double(bitPattern: bits)
            if Self.written(value) != Self.swiftText(value), differences.count < 10 { differences.append(bits) }
        }
        #expect(differences.isEmpty, "written unlike Swift (bit patterns): \(differences)")
    }

    /// The short path, not Swift's printer, answers for a fix's numbers (what makes it worth having).
    @Test func theShortPathAnswersForAFixsNumbers() {
        #expect(JSONNumber.shortestDecimal(52.2297) ?? (0, 0) == (522_297, 4))
        #expect(JSONNumber.shortestDecimal(21.0122) ?? (0, 0) == (210_122, 4))
        #expect(JSONNumber.shortestDecimal(0.9) ?? (0, 0) == (9, 1))
        #expect(JSONNumber.shortestDecimal(110.123456789) ?? (0, 0) == (110_123_456_789, 9))
        // Seventeen digits pass 2⁵³: Swift's printer answers.
        #expect(JSONNumber.shortestDecimal(0.1 + 0.2) == nil)
        // Two decimals of nine places read back as this one (…425 and …426,
        // at sixteen digits a Double's spacing is wider than the last digit):
        // Swift's printer picks the nearer.
        #expect(JSONNumber.shortestDecimal(8_585_610.785_194_425) == nil)
        #expect(Self.written(8_585_610.785_194_425) == "8585610.785194425")
    }

    /// `JSONValue.format` and the object writer write the same text.
    @Test func everyWriterAgrees() {
        for value in [52.2297, -0.000_25, 1e300, 17.0, .nan] {
            var object = JSONObjectWriter()
            object.add("n", number: value)
            object.finish()
            #expect(JSONValue.format(value) == Self.swiftText(value))
            #expect(String(decoding: object.bytes, as: UTF8.self) == #"{"n":\#(Self.swiftText(value))}"#)
            #expect(JSONValue.array([.number(value)]).serialized() == "[\(Self.swiftText(value))]")
        }
    }

    private func pow10(_ exponent: Int) -> Double { (0..<exponent).reduce(1.0) { value, _ in value * 10 } }
}
