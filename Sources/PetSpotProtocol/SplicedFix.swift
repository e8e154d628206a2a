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
/// A class: an answer or update carrying it is copied by one retain. Its
/// fix holds a `ContinuousClock.Instant`, a type whose layout only the
/// runtime knows, so a struct holding it is copied through runtime calls,
/// once per answer on the request path.
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

    /// The age member's value at `now`, as ``WireCoding/encode(_:at:)`` writes it.
    private func age(at now: ContinuousClock.Instant) -> String {
        JSONValue.format(WireCoding.wireAge(of: fix, at: now))
    }

    /// Appends the whole object, with the age at `now`, through `append`.
    func write(at now: ContinuousClock.Instant, into append: (UnsafeRawBufferPointer) -> Void) {
        open.withUnsafeBytes(append)
        var age = age(at: now)
        age.withUTF8 { append(UnsafeRawBufferPointer($0)) }
        rest.withUnsafeBytes(append)
    }

    /// Appends `value`'s decimal digits through `append`, without a String.
    static func writeInteger(_ value: Int, then tail: [UInt8], into append: (UnsafeRawBufferPointer) -> Void) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24 + tail.count) { digits in
            var magnitude = value.magnitude
            var start = digits.count - tail.count
            for (offset, byte) in tail.enumerated() { digits[start + offset] = byte }
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            append(UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(digits)[start...]))
        }
    }
}
