import PetSpotJSON
import PetSpotLocation

/// A fix's wire object (``WireCoding/encode(_:at:)``) serialized once,
/// with its `age` left open: the one member that changes between two
/// lines carrying the same fix.
///
/// The serializer sorts keys, and a fix's `accuracy` and `age` are always
/// present and sort before every other member, so the object is
/// ``open`` (`{"accuracy":"full","age":`), the age, then ``rest``
/// (`,"altitude":…}`). ``UpdateNotification`` and ``GetAnswer`` build
/// their lines around it.
///
/// A class: an answer or update carrying it is copied by one retain, not
/// its fix and two arrays.
final class SplicedFix: Sendable {
    /// The fix as it goes out (after any reduced-accuracy snapping).
    let fix: LocationFix
    /// Up to and including `"age":`.
    let open: [UInt8]
    /// From the comma after the age to the object's closing brace.
    let rest: [UInt8]

    init(fix: LocationFix) {
        self.fix = fix
        var open: [UInt8] = Array(#"{"accuracy":"#.utf8)
        JSONValue.string(fix.accuracy.rawValue).write(utf8: &open)
        open.append(contentsOf: #","age":"#.utf8)
        // The remaining members, in the serializer's order, after the age: `,"altitude":…}`.
        var rest: [UInt8] = []
        rest.reserveCapacity(256)
        WireCoding.writeMembersAfterAge(of: fix, utf8: &rest)
        self.open = open
        self.rest = rest
    }

    /// Appends the whole object, with the age at `now`, through `append`.
    func write(at now: ContinuousClock.Instant, into append: (UnsafeRawBufferPointer) -> Void) {
        open.withUnsafeBytes(append)
        Self.writeAge(milliseconds: WireCoding.wireAgeMilliseconds(of: fix, at: now), into: append)
        rest.withUnsafeBytes(append)
    }

    /// Appends an age of whole `milliseconds` in seconds, as
    /// ``WireCoding/encode(_:at:)`` writes it (`JSONValue.format` of
    /// `milliseconds / 1000`, whose shortest form is that decimal with its
    /// trailing zeros dropped: "0", "0.05", "2.25"), from integer digits.
    ///
    /// Every event loop writes one age per fix: the float printer (a large,
    /// cold piece of code) stays off the loops (issue 40).
    static func writeAge(milliseconds: Int64, into append: (UnsafeRawBufferPointer) -> Void) {
        // Far past any age a fix reaches: the float printer decides the form.
        guard (0..<1_000_000_000_000).contains(milliseconds) else {
            var text = JSONValue.format(Double(milliseconds) / 1000)
            text.withUTF8 { append(UnsafeRawBufferPointer($0)) }
            return
        }
        var fraction = milliseconds % 1000
        var places = fraction == 0 ? 0 : 3
        while places > 0, fraction % 10 == 0 {
            fraction /= 10
            places -= 1
        }
        let digits = UInt64(milliseconds / 1000) * pow10(places) + UInt64(fraction)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { buffer in
            let start = JSONNumber.writeDecimal(digits, places: places, before: buffer.count, in: buffer)
            append(UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(buffer)[start...]))
        }
    }

    private static func pow10(_ places: Int) -> UInt64 { places == 0 ? 1 : places == 1 ? 10 : places == 2 ? 100 : 1000 }

    /// Appends `value`'s decimal digits through `append`, without a String.
    static func writeInteger(_ value: Int, then tail: [UInt8], into append: (UnsafeRawBufferPointer) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24 + tail.count) { digits in
            let end = digits.count - tail.count
            for (offset, byte) in tail.enumerated() { digits[end + offset] = byte }
            var start = JSONNumber.writeDigits(UInt64(value.magnitude), before: end, in: digits)
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            append(UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(digits)[start...]))
        }
    }
}
