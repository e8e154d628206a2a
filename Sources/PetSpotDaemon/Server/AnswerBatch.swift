import NIOConcurrencyHelpers
import NIOCore

/// The `location.get` answers one event loop produced in one pass, held
/// until their audit records are written: all of them with one `write(2)`,
/// then every answer. "Audited before sent" (SPEC §6) then costs one audit
/// write per pass instead of one per answer, and the event loops no longer
/// take the audit log's lock for every answer.
///
/// A connection's answers are held, not written to the channel: another
/// writer on the channel (an update, a prompt) flushing it could otherwise
/// send one before its record. The batch is released at the end of the
/// pass (a task queued on the loop runs after the pass's reads), when it
/// holds ``maximumHeldBytes``, and before a connection's next line goes
/// the full way (``ImmediateAnswerHandler``), so a connection's answers
/// keep their order.
///
/// Bound to its event loop: only that loop's handlers use it.
final class AnswerBatch {
    /// Past this many bytes of answers and records, the batch is released at once.
    static let maximumHeldBytes = 256 * 1024
    /// Past this many bytes of one connection's answers, the batch is
    /// released at once: NIO's default high water mark, so a client that
    /// pipelines without reading meets the outbound bound (its channel
    /// turning unwritable) as soon as without the batch, give or take one
    /// such amount.
    static let maximumHeldBytesPerConnection = 64 * 1024

    private let eventLoop: any EventLoop
    private let audit: AuditLog
    private var records = AuditLines()
    private var held: [(context: ChannelHandlerContext, answer: ByteBuffer)] = []
    private var heldBytes = 0
    private var releaseQueued = false
    /// Counts releases, so a connection can tell whether its answers were released.
    private(set) var releases: UInt64 = 0

    init(eventLoop: any EventLoop, audit: AuditLog) {
        self.eventLoop = eventLoop
        self.audit = audit
    }

    /// Whether answers are waiting for their records.
    var isHolding: Bool { !held.isEmpty }

    /// Holds `answer` for `context`'s channel until `record` is written.
    func hold(_ answer: ByteBuffer, record: [UInt8], for context: ChannelHandlerContext) {
        records.append(record)
        held.append((context, answer))
        heldBytes += answer.readableBytes + record.count
        if heldBytes >= Self.maximumHeldBytes {
            release()
        } else if !releaseQueued {
            releaseQueued = true
            let loopBound = NIOLoopBound(self, eventLoop: eventLoop)
            eventLoop.execute {
                loopBound.value.releaseQueued = false
                loopBound.value.release()
            }
        }
    }

    /// Writes the held records with one write, then the answers, flushing
    /// each connection once.
    func release() {
        guard !held.isEmpty else { return }
        releases &+= 1
        audit.append(records)
        records.removeAll()
        let answers = held
        held.removeAll(keepingCapacity: true)
        heldBytes = 0
        for (index, entry) in answers.enumerated() {
            entry.context.write(NIOAny(entry.answer), promise: nil)
            if index + 1 == answers.count || answers[index + 1].context !== entry.context {
                entry.context.flush()
            }
        }
    }
}

/// One ``AnswerBatch`` per event loop, made when a loop's first connection
/// is set up.
final class AnswerBatches: Sendable {
    private let audit: AuditLog
    private let batches = NIOLockedValueBox<[ObjectIdentifier: NIOLoopBound<AnswerBatch>]>([:])

    init(audit: AuditLog) { self.audit = audit }

    /// `eventLoop`'s batch; on `eventLoop`.
    func batch(on eventLoop: any EventLoop) -> AnswerBatch {
        batches.withLockedValue { batches in
            let key = ObjectIdentifier(eventLoop)
            if let batch = batches[key] { return batch.value }
            let batch = AnswerBatch(eventLoop: eventLoop, audit: audit)
            batches[key] = NIOLoopBound(batch, eventLoop: eventLoop)
            return batch
        }
    }
}
