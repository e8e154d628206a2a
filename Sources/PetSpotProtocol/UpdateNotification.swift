import PetSpotJSON
import PetSpotLocation

/// One fix's `location.update` notification, serialized once and shared by
/// every watcher it goes to.
///
/// Watchers' lines for one fix differ only in two numbers: the fix's `age`
/// (measured when each line is written) and the subscription number. The
/// rest is kept as three byte runs, and ``write(subscription:at:into:)``
/// splices the two numbers in, so fanning a fix out to a thousand watchers
/// costs one JSON serialization, not a thousand. A pass that writes every
/// watcher's line at once can fix the age for the whole pass
/// (``stamped(at:)``): each line is then two copies and a number.
///
/// The bytes are exactly those of
/// `RPCCodec.line(RPCCodec.notification(method: "location.update", params: ["fix": …, "subscription": n]))`:
/// the serializer sorts keys, and the fix's `accuracy` and `age` (always
/// present) sort before every other fix key, `fix` before `subscription`.
public struct UpdateNotification: Sendable {
    /// The fix as it goes out (after any reduced-accuracy snapping).
    public let fix: LocationFix
    /// Up to and including `"age":`.
    private let head: [UInt8]
    /// From the comma after the age up to and including `"subscription":`.
    private let middle: [UInt8]
    /// `head`, the age and `middle` when the age is fixed (``stamped(at:)``).
    private var stampedPrefix: [UInt8]?
    private static let tail: [UInt8] = Array("}}\n".utf8)

    /// Serializes `fix` (everything but its age).
    public init(fix: LocationFix) {
        self.fix = fix
        guard case .object(var members) = WireCoding.encode(fix) else { preconditionFailure("a fix is an object") }
        members["accuracy"] = nil
        members["age"] = nil
        var head: [UInt8] = Array(#"{"jsonrpc":"2.0","method":"location.update","params":{"fix":{"accuracy":"#.utf8)
        JSONValue.string(fix.accuracy.rawValue).write(utf8: &head)
        head.append(contentsOf: #","age":"#.utf8)
        // The remaining members, sorted, after the age: `{"altitude":…}` becomes `,"altitude":…}`.
        var middle: [UInt8] = []
        middle.reserveCapacity(256)
        JSONValue.object(members).write(utf8: &middle)
        middle[0] = UInt8(ascii: ",")
        middle.append(contentsOf: #","subscription":"#.utf8)
        self.head = head
        self.middle = middle
    }

    /// An upper bound of one line's length, for sizing a buffer.
    public var maximumLineLength: Int { head.count + middle.count + Self.tail.count + 48 }

    /// This notification with the age measured once, at `now`, for every
    /// line written from it (a fan-out pass writes all its lines within
    /// milliseconds; the age has millisecond precision).
    public func stamped(at now: ContinuousClock.Instant = .now) -> UpdateNotification {
        var prefix = head
        prefix.reserveCapacity(head.count + 24 + middle.count)
        var age = Self.age(of: fix, at: now)
        age.withUTF8 { prefix.append(contentsOf: $0) }
        prefix.append(contentsOf: middle)
        var copy = self
        copy.stampedPrefix = prefix
        return copy
    }

    /// This notification measuring the age again at each write (for a line
    /// that waits: its age must say so).
    public var unstamped: UpdateNotification {
        var copy = self
        copy.stampedPrefix = nil
        return copy
    }

    private static func age(of fix: LocationFix, at now: ContinuousClock.Instant) -> String {
        JSONValue.format((fix.age(at: now) * 1000).rounded() / 1000)
    }

    /// Appends the line (newline included) for `subscription`, with the
    /// fix's age measured at `now` (or as stamped, see ``stamped(at:)``),
    /// through `append` (called with consecutive pieces, so the caller can
    /// write straight into its own buffer).
    public func write(
        subscription: Int, at now: ContinuousClock.Instant = .now,
        into append: (UnsafeRawBufferPointer) -> Void
    ) {
        if let stampedPrefix {
            stampedPrefix.withUnsafeBytes(append)
        } else {
            head.withUnsafeBytes(append)
            var age = Self.age(of: fix, at: now)
            age.withUTF8 { append(UnsafeRawBufferPointer($0)) }
            middle.withUnsafeBytes(append)
        }
        // The subscription number and the tail, without a String.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24) { digits in
            var value = subscription.magnitude
            var start = digits.count - Self.tail.count
            for (offset, byte) in Self.tail.enumerated() { digits[start + offset] = byte }
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(value % 10)
                value /= 10
            } while value > 0
            if subscription < 0 {
                start -= 1
                digits[start] = UInt8(ascii: "-")
            }
            append(UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(digits)[start...]))
        }
    }

    /// The line for `subscription` as bytes.
    public func line(subscription: Int, at now: ContinuousClock.Instant = .now) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(maximumLineLength)
        write(subscription: subscription, at: now) { bytes.append(contentsOf: $0) }
        return bytes
    }

    /// The notification as a message, for sinks that take messages.
    public func message(subscription: Int, at now: ContinuousClock.Instant = .now) -> JSONValue {
        RPCCodec.notification(
            method: RPCMethod.locationUpdate,
            params: ["subscription": .number(Double(subscription)), "fix": WireCoding.encode(fix, at: now)])
    }
}
