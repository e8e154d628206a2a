import PetSpotJSON
import PetSpotLocation

/// One fix's `location.update` notification, serialized once and shared by
/// every watcher it goes to.
///
/// Watchers' lines for one fix differ only in two numbers: the fix's `age`
/// (measured when each line is written) and the subscription number. The
/// rest is kept as byte runs (``SplicedFix``), and
/// ``write(subscription:at:into:)`` splices the two numbers in, so fanning a fix out to a thousand watchers
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
    public var fix: LocationFix { spliced.fix }
    private let spliced: SplicedFix
    /// `head`, the age and the subscription key when the age is fixed (``stamped(at:)``).
    private var stampedPrefix: [UInt8]?
    private static let head: [UInt8] = Array(#"{"jsonrpc":"2.0","method":"location.update","params":{"fix":"#.utf8)
    private static let subscriptionKey: [UInt8] = Array(#","subscription":"#.utf8)
    private static let tail: [UInt8] = Array("}}\n".utf8)

    /// Serializes `fix` (everything but its age).
    public init(fix: LocationFix) {
        spliced = SplicedFix(fix: fix)
    }

    /// An upper bound of one line's length, for sizing a buffer.
    public var maximumLineLength: Int {
        Self.head.count + spliced.open.count + spliced.rest.count + Self.subscriptionKey.count + Self.tail.count + 48
    }

    /// This notification with the age measured once, at `now`, for every
    /// line written from it (a fan-out pass writes all its lines within
    /// milliseconds; the age has millisecond precision).
    public func stamped(at now: ContinuousClock.Instant = .now) -> UpdateNotification {
        var prefix: [UInt8] = []
        prefix.reserveCapacity(maximumLineLength)
        writePrefix(at: now) { prefix.append(contentsOf: $0) }
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

    /// Everything before the subscription number.
    private func writePrefix(at now: ContinuousClock.Instant, into append: (UnsafeRawBufferPointer) -> Void) {
        Self.head.withUnsafeBytes(append)
        spliced.write(at: now, into: append)
        Self.subscriptionKey.withUnsafeBytes(append)
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
            writePrefix(at: now, into: append)
        }
        SplicedFix.writeInteger(subscription, then: Self.tail, into: append)
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
