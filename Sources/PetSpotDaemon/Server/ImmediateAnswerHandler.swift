import NIOCore

/// Answers, right where a request line arrives on the connection's event
/// loop, what needs no waiting: a `location.get` from an identified client
/// whose grant is kept and a source with a fix at hand
/// (``Dispatcher/answerAtOnce(_:session:)``). No task, no actor hop, no
/// async write. Every other line goes on, unchanged, to the connection's
/// serving task.
///
/// Until the serving task has admitted and identified the client
/// (``attach(_:)``), every line goes on.
final class ImmediateAnswerHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let dispatcher: Dispatcher
    private var session: ClientSession?
    /// Answers written since the last flush: flushed once per read burst.
    private var unflushed = false

    init(dispatcher: Dispatcher) { self.dispatcher = dispatcher }

    /// The connection's session, once admitted and identified; on the channel's loop.
    func attach(_ session: ClientSession) { self.session = session }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        // A client that does not read gets nothing written at once: the line
        // takes the full way, whose answers wait for the socket and hold the
        // connection's request slots until written, and so stop the reading.
        guard context.channel.isWritable, let session,
            let answer = dispatcher.answerAtOnce(line.readableBytesView, session: session)
        else {
            context.fireChannelRead(data)
            return
        }
        var buffer = context.channel.allocator.buffer(capacity: answer.count)
        buffer.writeBytes(answer)
        context.write(wrapOutboundOut(buffer), promise: nil)
        unflushed = true
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if unflushed {
            unflushed = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }
}
