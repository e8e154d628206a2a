import NIOCore
import PetSpotProtocol

/// Answers, right where a request line arrives on the connection's event
/// loop, what needs no waiting: a `location.get` from an identified client
/// whose grant is kept and a source with a fix at hand
/// (``Dispatcher/answerAtOnce(_:session:reusing:)``). No task, no actor
/// hop, no async write. Every other line goes on, unchanged, to the
/// connection's serving task.
///
/// With an audit log, answers wait in the loop's ``AnswerBatch`` until
/// their records are written; without one they are written at once and
/// flushed once per read burst.
///
/// Until the serving task has admitted and identified the client
/// (``attach(_:)``), every line goes on.
final class ImmediateAnswerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let dispatcher: Dispatcher
    private let batches: AnswerBatches?
    private var batch: AnswerBatch?
    private var session: ClientSession?
    /// The last answer given: reused while its fix answers.
    private var lastAnswer: GetAnswer?
    /// Answers written since the last flush (no audit log): flushed once per read burst.
    private var unflushed = false
    /// Bytes of this connection's answers in the batch since its release number `heldSince`.
    private var heldBytes = 0
    private var heldSince: UInt64 = 0

    init(dispatcher: Dispatcher, batches: AnswerBatches?) {
        self.dispatcher = dispatcher
        self.batches = batches
    }

    /// The connection's session, once admitted and identified; on the channel's loop.
    func attach(_ session: ClientSession) { self.session = session }

    func handlerAdded(context: ChannelHandlerContext) {
        batch = batches?.batch(on: context.eventLoop)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        // A client that does not read gets nothing written at once: the line
        // takes the full way, whose answers wait for the socket and hold the
        // connection's request slots until written, and so stop the reading.
        guard context.channel.isWritable, let session,
            let answer = dispatcher.answerAtOnce(line.readableBytesView, session: session, reusing: lastAnswer)
        else {
            // Answers held for this pass go first: the line's own answer
            // must not overtake them.
            if let batch, batch.isHolding { batch.release() }
            context.fireChannelRead(data)
            return
        }
        lastAnswer = answer.answer
        var buffer = context.channel.allocator.buffer(capacity: answer.typicalLineLength)
        answer.write { buffer.writeBytes($0) }
        if let batch, let record = answer.auditLine {
            if batch.releases != heldSince {
                heldSince = batch.releases
                heldBytes = 0
            }
            heldBytes += buffer.readableBytes
            batch.hold(buffer, record: record, for: context)
            // The channel's writability does not count held answers: past the
            // bound they go to the channel now, and it says so again.
            if heldBytes >= AnswerBatch.maximumHeldBytesPerConnection { batch.release() }
        } else {
            context.write(wrapOutboundOut(buffer), promise: nil)
            unflushed = true
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }
}
