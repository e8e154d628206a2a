import NIOCore
import PetSpotJSON
import PetSpotProtocol

/// How the ``Dispatcher`` answers one line: now, on the connection's event
/// loop, or later, from a task the connection owns (``ConnectionHandler``).
public enum Answer: Sendable {
    case now(Reply)
    case later(@Sendable () async -> Reply)
}

/// What a connection writes in answer to one line, and what follows it.
///
/// The connection's one outbound queue (``OutboundQueue``) writes
/// ``record`` to the audit log before ``body`` reaches the socket, and
/// runs ``then`` once ``body`` is queued: nothing of a watch it starts can
/// overtake the answer that names its subscription.
public struct Reply: Sendable {
    /// The answer's line.
    public enum Body: Sendable {
        /// A JSON-RPC message, serialized when written.
        case message(JSONValue)
        /// A `location.get` answer: the fix's serialization, spliced with the
        /// request's id and the fix's age at `at` (``GetAnswer``).
        case location(GetAnswer, id: JSONValue, at: ContinuousClock.Instant)
    }

    /// `nil`: nothing to write (a notification, a response from the agent).
    public var body: Body?
    /// The audit record (``AuditRecord/jsonLine(client:)``) of a served
    /// `location.get`, to be written before the answer. Every other record
    /// (a refusal, a decision) was written while the reply was produced.
    public var record: [UInt8]?
    /// Runs once the answer is queued (a watch's first delivery).
    public var then: (@Sendable () async -> Void)?

    /// A message, and what follows it.
    public init(_ message: JSONValue, then: (@Sendable () async -> Void)? = nil) {
        self.body = .message(message)
        self.then = then
    }

    /// Nothing to write (a notification, a response), and what follows it.
    /// (Not `Reply(nil)`: `nil` is also JSON's `null`.)
    public static func nothing(then: (@Sendable () async -> Void)? = nil) -> Reply {
        var reply = Reply(.null, then: then)
        reply.body = nil
        return reply
    }

    /// A `location.get` answer and its audit record.
    public init(location answer: GetAnswer, id: JSONValue, at now: ContinuousClock.Instant, record: [UInt8]?) {
        self.body = .location(answer, id: id, at: now)
        self.record = record
    }

    /// The answer a connection reuses for its next `location.get` (``GetAnswer``).
    public var locationAnswer: GetAnswer? {
        if case .location(let answer, _, _)? = body { answer } else { nil }
    }

    /// The line, newline included, from `allocator`.
    public func line(_ allocator: ByteBufferAllocator) -> ByteBuffer? {
        switch body {
        case nil: nil
        case .message(let message): Self.line(message, allocator)
        case .location(let answer, let id, let now): Self.line(answer, id: id, at: now, allocator)
        }
    }

    /// `message`'s line, newline included.
    static func line(_ message: JSONValue, _ allocator: ByteBufferAllocator) -> ByteBuffer {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320)
        message.write(utf8: &bytes)
        bytes.append(UInt8(ascii: "\n"))
        return allocator.buffer(bytes: bytes)
    }

    /// A `location.get` answer's line: `answer` spliced with `id` and its age at `now`.
    static func line(
        _ answer: GetAnswer, id: JSONValue, at now: ContinuousClock.Instant, _ allocator: ByteBufferAllocator
    ) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: answer.typicalLineLength)
        answer.write(id: id, at: now) { buffer.writeBytes($0) }
        return buffer
    }

    /// The line as text (tests, the fuzz target).
    public var text: String? {
        line(ByteBufferAllocator()).map { String(buffer: $0) }
    }
}
