import PetSpotJSON
import Testing

/// ``JSONNumber/read(_:at:)``'s fast path (at most 15 significant digits
/// scaled by at most 10²², one exact operation) gives `Double(text)`'s
/// value bit for bit, as its slow path does by calling it.
@Suite("JSON numbers: the fast path reads as strtod does")
struct JSONNumberTests {
    static func read(_ text: String) -> Double? {
        var index = 0
        let result = Array(text.utf8).withUnsafeBytes { JSONNumber.read($0, at: &index) }
        guard case .success(let value) = result, index == text.utf8.count else { return nil }
        return value
    }

    static func same(_ text: String) -> Bool {
        guard let expected = Double(text), expected.isFinite else { return read(text) == nil }
        guard let value = read(text) else { return false }
        return value.bitPattern == expected.bitPattern
    }

    @Test(
        arguments: [
            "0", "-0", "0.0", "-0.0", "0e999", "-0E-999", "1", "-1", "0.1", "0.2", "0.3", "52.229700000", "-37.8136",
            "175.31", "1e22", "1e23", "1e-22", "1e-23", "123456789012345", "1234567890123456", "12345678901234567",
            "9007199254740993", "0.000000000000000000001", "1.7976931348623157e308", "2.2250738585072014e-308",
            "5e-324", "4.9406564584124654e-324", "1e-400", "130.0000", "0.005", "17.100", "359.99999999999994",
            "1.23456789012345e-7", "999999999999999e22", "99999999999999.9", "0.30000000000000004", "1E+2",
            "100000000000000000000000", "1.5e300", "12.5e-3",
        ])
    func edgeCases(_ text: String) {
        #expect(
            Self.same(text), "\(text): \(String(describing: Self.read(text))) vs \(String(describing: Double(text)))")
    }

    /// Random decimals around the fast path's bounds (a fixed seed).
    @Test func randomDecimals() {
        var state: UInt64 = 40
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<50_000 {
            var text = next(2) == 0 ? "-" : ""
            let integerDigits = next(4) == 0 ? 1 : 1 + next(17)
            for position in 0..<integerDigits {
                text += String(position == 0 && integerDigits > 1 ? 1 + next(9) : next(10))
            }
            if next(3) > 0 {
                text += "."
                for _ in 0..<(1 + next(18)) { text += String(next(10)) }
            }
            if next(3) == 0 { text += "e" + (next(2) == 0 ? "-" : "") + String(next(40)) }
            #expect(Self.same(text), "\(text)")
        }
    }
}
