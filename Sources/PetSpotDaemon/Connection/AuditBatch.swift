import NIOCore

/// The audit records of the `location.get` answers one event loop produced
/// in one pass, written with one `write(2)` before any of those answers
/// leaves: "audited before sent" (SPEC §6) then costs one audit write per
/// pass instead of one per answer.
///
/// A connection's answer waits in its ``OutboundQueue`` (held for audit)
/// until the batch is released: at the end of the pass (a job queued on the
/// loop runs after the pass's reads), or at once when it holds
/// ``maximumHeldBytes`` (256 KiB unless told). Bound to its event loop: only that loop's
/// connections use it.
final class AuditBatch {
    /// Past this many bytes of records, the batch is released at once.
    let maximumHeldBytes: Int

    private let eventLoop: any EventLoop
    private let audit: AuditLog
    private var records = AuditLines()
    /// The connections with answers waiting, each once.
    private var waiting: [ConnectionHandler] = []
    private var releaseQueued = false
    /// Counts releases (tests).
    private(set) var releases: UInt64 = 0

    init(eventLoop: any EventLoop, audit: AuditLog, maximumHeldBytes: Int = 256 * 1024) {
        self.eventLoop = eventLoop
        self.audit = audit
        self.maximumHeldBytes = maximumHeldBytes
    }

    /// Holds `record` until the release; then tells `connection` its held
    /// answers may go. The answer must be queued (held) first: the release
    /// can come at once, from inside this call.
    func hold(_ record: [UInt8], for connection: ConnectionHandler) {
        records.append(record)
        if waiting.last !== connection, !waiting.contains(where: { $0 === connection }) { waiting.append(connection) }
        if records.bytes.count >= maximumHeldBytes {
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

    /// Writes the held records with one write, then releases the answers.
    func release() {
        guard !records.isEmpty else { return }
        releases &+= 1
        audit.append(records)
        records.removeAll()
        let connections = waiting
        waiting.removeAll(keepingCapacity: true)
        for connection in connections { connection.auditWritten() }
    }
}

/// One ``AuditBatch`` per event loop of a group, made up front.
struct AuditBatches: Sendable {
    private let batches: [(loop: any EventLoop, batch: NIOLoopBoundBox<AuditBatch>)]

    init(group: any EventLoopGroup, audit: AuditLog) {
        batches = group.makeIterator().map { loop in
            (
                loop,
                NIOLoopBoundBox.makeBoxSendingValue(
                    AuditBatch(eventLoop: loop, audit: audit), as: AuditBatch.self, eventLoop: loop)
            )
        }
    }

    /// `eventLoop`'s batch; on `eventLoop`. `nil` for a loop outside the group.
    func batch(on eventLoop: any EventLoop) -> AuditBatch? {
        batches.first { $0.loop === eventLoop }?.batch.value
    }
}
