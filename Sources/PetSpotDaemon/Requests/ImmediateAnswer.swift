import PetSpotJSON
import PetSpotProtocol

/// A `location.get` answered at once (``Dispatcher/answerAtOnce(_:session:reusing:)``):
/// the answer line to write and the audit record to write before it.
public struct ImmediateAnswer: Sendable {
    /// The fix's serialization; the connection passes it back as `reusing`
    /// with its next request.
    public let answer: GetAnswer
    /// The request's id.
    public let id: JSONValue
    /// When it was answered: the `age` in the answer and in the audit record.
    public let answeredAt: ContinuousClock.Instant
    /// The audit record's line, to be written before the answer; `nil`
    /// without an audit log.
    public let auditLine: [UInt8]?

    /// An upper bound of the line's length for a numeric id, for sizing a buffer.
    public var typicalLineLength: Int { answer.typicalLineLength }

    /// Appends the answer line through `append`.
    public func write(into append: (UnsafeRawBufferPointer) -> Void) {
        answer.write(id: id, at: answeredAt, into: append)
    }

    /// The answer line.
    public var line: [UInt8] { answer.line(id: id, at: answeredAt) }
}
