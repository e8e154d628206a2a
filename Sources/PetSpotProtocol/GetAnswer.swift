import PetSpotJSON
import PetSpotLocation

/// The answer to `location.get` for one fix, serialized once and reused
/// for every request the same fix answers.
///
/// Two answers with the same fix differ only in the request's `id` and the
/// fix's `age`; ``write(id:at:into:)`` splices both into the fix's
/// serialization (``SplicedFix``). A connection that asks over and over
/// between two fixes pays one JSON serialization per fix, not per answer.
///
/// The bytes are exactly those of
/// `RPCCodec.line(RPCCodec.response(id: id, result: WireCoding.encode(fix, at: now)))`:
/// the serializer sorts keys (`id`, `jsonrpc`, `result`).
public struct GetAnswer: Sendable {
    private let spliced: SplicedFix
    private static let idKey: [UInt8] = Array(#"{"id":"#.utf8)
    private static let resultKey: [UInt8] = Array(#","jsonrpc":"2.0","result":"#.utf8)
    private static let tail: [UInt8] = Array("}\n".utf8)

    /// Serializes `fix` (everything but its age).
    public init(fix: LocationFix) { spliced = SplicedFix(fix: fix) }

    /// The fix it answers with.
    public var fix: LocationFix { spliced.fix }

    /// An upper bound of the line's length for a numeric `id`, for sizing a buffer.
    public var typicalLineLength: Int {
        Self.idKey.count + Self.resultKey.count + spliced.open.count + spliced.rest.count + Self.tail.count + 48
    }

    /// Appends the answer line (newline included) to request `id`, with the
    /// fix's age at `now`, through `append` (called with consecutive pieces).
    public func write(id: JSONValue, at now: ContinuousClock.Instant, into append: (UnsafeRawBufferPointer) -> Void) {
        Self.idKey.withUnsafeBytes(append)
        // An integer id as JSONValue.format writes it (whole numbers below 1e15), without a String.
        if case .number(let number) = id, let integer = Int(exactly: number), integer.magnitude < 1_000_000_000_000_000
        {
            SplicedFix.writeInteger(integer, then: [], into: append)
        } else {
            var bytes: [UInt8] = []
            id.write(utf8: &bytes)
            bytes.withUnsafeBytes(append)
        }
        Self.resultKey.withUnsafeBytes(append)
        spliced.write(at: now, into: append)
        Self.tail.withUnsafeBytes(append)
    }

    /// The answer line to `id` as bytes.
    public func line(id: JSONValue, at now: ContinuousClock.Instant) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(typicalLineLength)
        write(id: id, at: now) { bytes.append(contentsOf: $0) }
        return bytes
    }
}
