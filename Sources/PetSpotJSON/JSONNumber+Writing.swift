extension JSONNumber {
    /// Appends `value` as JSON, as ``JSONValue/format(_:)`` writes it
    /// (integral values below 10¹⁵ without a fraction, non-finite as `null`,
    /// anything else as Swift prints it: the shortest decimal that reads
    /// back as `value`), straight into `output`, without a `String`.
    ///
    /// The numbers a fix carries (a coordinate, an accuracy, a speed) are
    /// short decimals, and each is written on every answer and every update
    /// line's serialization. For them the shortest form is found here with
    /// a few exact divisions instead of the general float printer (a large
    /// routine that runs cold once per fix, and a `String` per number:
    /// issue 40). Anything this cannot prove to be Swift's text goes to
    /// Swift's printer: `JSONNumberWritingTests` holds both equal.
    public static func write(_ value: Double, utf8 output: inout [UInt8]) {
        guard value.isFinite else {
            output.append(contentsOf: "null".utf8)
            return
        }
        let magnitude = value.magnitude
        if value == value.rounded(), magnitude < 1e15 {
            writeInteger(Int64(value), utf8: &output)
            return
        }
        // Swift writes an exponent below 10⁻⁴; and below 10¹⁵ every decimal
        // tried here has a mantissa under 2⁵³, exact in a `Double`.
        if magnitude >= 1e-4, magnitude < 1e15, let (digits, places) = shortestDecimal(magnitude) {
            if value < 0 { output.append(UInt8(ascii: "-")) }
            writeFixedPoint(digits, places: places, utf8: &output)
            return
        }
        output.append(contentsOf: "\(value)".utf8)
    }

    /// The shortest decimal `digits × 10^-places` (1 ≤ places ≤ 22) that
    /// reads back as `magnitude` (positive, not integral), or `nil` when it
    /// is not certain to be the one Swift's printer picks.
    ///
    /// A candidate `m / 10^k`, with `m < 2⁵³` and `k ≤ 22`, is two exact
    /// `Double`s, so their IEEE quotient is the correctly rounded value of
    /// that decimal: what reading its text gives. The product `magnitude ×
    /// 10^k` is rounded once, so the nearest integer to the exact product is
    /// `m - 1`, `m` or `m + 1`; all three are tried. The first `k` with a
    /// candidate that reads back is the fewest digits; two candidates there
    /// (Swift would pick the nearer) is left to Swift.
    static func shortestDecimal(_ magnitude: Double) -> (digits: UInt64, places: Int)? {
        let mantissaLimit = 9_007_199_254_740_992.0  // 2⁵³
        for places in 1...22 {
            let power = powersOfTen[places]
            let scaled = (magnitude * power).rounded()
            guard scaled + 1 < mantissaLimit else { return nil }
            let nearest = UInt64(scaled)
            var found: UInt64?
            for offset in 0..<3 {
                // nearest, nearest - 1, nearest + 1 (0 never reads back as a non-zero value).
                let candidate = offset == 1 ? (nearest > 1 ? nearest - 1 : 0) : nearest + UInt64(offset / 2)
                guard candidate > 0, Double(candidate) / power == magnitude else { continue }
                guard found == nil else { return nil }
                found = candidate
            }
            if let found { return (found, places) }
        }
        return nil
    }

    /// Appends `digits × 10^-places` in fixed point: the whole part (at
    /// least `0`), a point, exactly `places` fraction digits.
    private static func writeFixedPoint(_ digits: UInt64, places: Int, utf8 output: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
            let start = writeDecimal(digits, places: places, before: buffer.count, in: buffer)
            output.append(contentsOf: UnsafeMutableBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Appends `value`'s decimal digits.
    private static func writeInteger(_ value: Int64, utf8 output: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            var start = writeDigits(value.magnitude, before: buffer.count, in: buffer)
            if value < 0 {
                start -= 1
                buffer[start] = UInt8(ascii: "-")
            }
            output.append(contentsOf: UnsafeMutableBufferPointer(rebasing: buffer[start...]))
        }
    }

    /// Writes `value`'s decimal digits to end just before `end` in `buffer`
    /// (written back to front, so no length is needed first).
    /// - Returns: where they start.
    @inlinable
    public static func writeDigits(
        _ value: UInt64, before end: Int, in buffer: UnsafeMutableBufferPointer<UInt8>
    )
        -> Int
    {
        var start = end
        var rest = value
        repeat {
            start -= 1
            buffer[start] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        } while rest > 0
        return start
    }

    /// Writes `digits × 10^-places` in fixed point (the whole part, at least
    /// `0`; then, when `places > 0`, a point and exactly `places` fraction
    /// digits) to end just before `end` in `buffer`.
    /// - Returns: where it starts.
    @inlinable
    public static func writeDecimal(
        _ digits: UInt64, places: Int, before end: Int, in buffer: UnsafeMutableBufferPointer<UInt8>
    ) -> Int {
        var start = end
        var rest = digits
        if places > 0 {
            for _ in 0..<places {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            }
            start -= 1
            buffer[start] = UInt8(ascii: ".")
        }
        return writeDigits(rest, before: start, in: buffer)
    }
}
