import Logging
import NIOCore
import PetSpotJSON
import PetSpotLocation
import PetSpotProtocol
import Synchronization

/// One client connection, on its event loop: the only reader of its
/// request lines and the only writer of its socket.
///
/// Each line is decoded once and answered by ``Dispatcher/answer(_:session:reusing:)``,
/// now or later (from a task this handler owns and cancels when the
/// connection closes). Everything written goes through the connection's one
/// ``OutboundQueue``, whose rules are enforced there:
/// - **audit before answer**: an answer with an audit record waits until its
///   loop's ``AuditBatch`` has written the record;
/// - **answer order**: answers leave in the order they were produced; what
///   a reply starts (a watch) runs only once the reply is queued;
/// - **bounded**: a line whose answer is not yet handed to the socket holds
///   one of `RPCConnections.maxRequestsInFlight` slots (64; not a configuration key); with none free, or while the
///   client does not read (the socket is not writable), the handler stops
///   reading and leaves the lines it already read unprocessed;
/// - **newest-only updates**: while answers wait or the client does not
///   read, a subscription keeps only its newest `location.update`.
///
/// Until the server has admitted and identified the client (``attach(_:)``)
/// nothing is read.
///
/// The state a watch update touches is `@exclusivity(unchecked)`: the
/// handler runs only on its loop, and none of those properties is held
/// across a call that can re-enter the handler (a re-entered write only
/// sets ``writeAgain``). Checked, each access cost a runtime call per
/// watcher per fix (issue 40: 3 of them were a third of ``write(_:)``).
final class ConnectionHandler: ChannelDuplexHandler, UpdateOutlet {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    // What a watch update reads (``write(_:)``) comes first, together: one
    // cache line a watcher a fix, not one per field (issue 40).
    @exclusivity(unchecked) private var context: ChannelHandlerContext?
    /// Update lines sent straight to the socket while NIO holds nothing of it.
    @exclusivity(unchecked) private var direct = DirectSend()
    @exclusivity(unchecked) private var unflushed = false
    /// Inside a read burst, writes are flushed once, at its end.
    @exclusivity(unchecked) private var inReadBurst = false
    @exclusivity(unchecked) private var queue = OutboundQueue()

    private let dispatcher: Dispatcher
    private let auditBatch: AuditBatch?
    private let maxInFlight: Int
    private let logger: Logger
    private(set) var session: ClientSession?

    /// Lines read but not processed yet (reading had to stop: the bound).
    private(set) var unprocessed = CircularBuffer<ByteBuffer>()
    /// A `read` asked for while reading is stopped.
    private var readWithheld = false
    /// The client stopped sending (half-close): answer what was read, then close.
    private var inputClosed = false
    /// Lines taken whose reply is not yet handed to the socket.
    private(set) var inFlight = 0
    /// The tasks answering lines later, and running what replies start.
    private var tasks: [UInt64: Task<Void, Never>] = [:]
    private var nextTask: UInt64 = 0
    /// The last `location.get` answer given: reused while its fix answers.
    private var lastAnswer: GetAnswer?
    /// A ``writeOut()`` or ``resume()`` pass is running (re-entered from a write or an answer).
    private var writing = false
    private var writeAgain = false
    private var resuming = false

    init(dispatcher: Dispatcher, auditBatch: AuditBatch?, maxInFlight: Int, logger: Logger) {
        self.dispatcher = dispatcher
        self.auditBatch = auditBatch
        self.maxInFlight = max(1, maxInFlight)
        self.logger = logger
        ConnectionCensus.handlers.wrappingAdd(1, ordering: .relaxed)
    }

    deinit { ConnectionCensus.handlers.wrappingSubtract(1, ordering: .relaxed) }

    // MARK: Life

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        direct = DirectSend(context)
    }

    /// The connection is gone: everything it held goes with it. The
    /// session refers back to this handler (its update outlet and `post`),
    /// so keeping it here would keep both alive for good.
    func handlerRemoved(context: ChannelHandlerContext) {
        queue.discardAll()
        session?.close()
        session = nil
        lastAnswer = nil
        direct.end()
        self.context = nil
    }

    /// The admitted client's session: reading starts. A session that
    /// arrives after the connection is gone is closed, not kept.
    func attach(_ session: ClientSession) {
        guard context != nil else {
            session.close()
            return
        }
        self.session = session
        resume()
    }

    func channelInactive(context: ChannelHandlerContext) {
        for task in tasks.values { task.cancel() }
        tasks.removeAll()
        unprocessed.removeAll()
        queue.discardAll()
        direct.end()
        session?.close()
        context.fireChannelInactive()
    }

    /// Hands `body` to a task on this connection's loop, owned (and
    /// cancelled when the connection closes) by this handler.
    private func own(_ body: @escaping @Sendable (NIOLoopBound<ConnectionHandler>) async -> Void) {
        guard let context, context.channel.isActive else { return }
        let number = nextTask
        nextTask &+= 1
        let loop = context.eventLoop
        let me = NIOLoopBound(self, eventLoop: loop)
        tasks[number] = Task(executorPreference: EventLoopTaskExecutor(loop)) {
            await body(me)
            loop.execute { me.value.tasks[number] = nil }
        }
    }

    // MARK: Reading

    func read(context: ChannelHandlerContext) {
        if isStopped || !unprocessed.isEmpty {
            readWithheld = true
        } else {
            context.read()
        }
    }

    /// Whether reading stops: not yet admitted, no slot free, or the client not reading.
    private var isStopped: Bool {
        session == nil || inFlight >= maxInFlight || !(context?.channel.isWritable ?? false)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let line = unwrapInboundIn(data)
        // The decoder bounds what it buffers, not a line that came whole in one read.
        guard line.readableBytes <= RPCCodec.maximumLineLength else {
            errorCaught(context: context, error: ByteToMessageDecoderError.PayloadTooLargeError())
            return
        }
        inReadBurst = true
        if isStopped || !unprocessed.isEmpty {
            unprocessed.append(line)
        } else {
            take(line)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        inReadBurst = false
        if unflushed {
            unflushed = false
            context.flush()
        }
        context.fireChannelReadComplete()
    }

    /// Answers one line: now, or later from an owned task.
    private func take(_ line: ByteBuffer) {
        guard let session else {
            unprocessed.append(line)
            return
        }
        inFlight += 1
        switch dispatcher.answer(line.readableBytesView, session: session, reusing: lastAnswer) {
        case .now(let reply):
            enqueue(reply)
        case .later(let work):
            own { me in
                let reply = await work()
                me.value.enqueue(reply)
            }
        }
    }

    /// Takes the lines left unprocessed while reading is possible again,
    /// then reads on; ends a connection whose client stopped sending once
    /// everything is answered.
    private func resume() {
        // Nothing left unprocessed, no read withheld, no half-close: nothing to do (the common case).
        guard !unprocessed.isEmpty || readWithheld || inputClosed else { return }
        guard let context, !resuming else { return }
        resuming = true
        defer { resuming = false }
        while !isStopped, let line = unprocessed.popFirst() { take(line) }
        if inputClosed, unprocessed.isEmpty {
            session?.close()
            if inFlight == 0, queue.isEmpty {
                context.close(promise: nil)
                return
            }
        }
        if readWithheld, !isStopped, unprocessed.isEmpty, !inputClosed {
            readWithheld = false
            context.read()
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            inputClosed = true
            resume()
        } else if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            closeIfIdle(context)
        } else {
            context.fireUserInboundEventTriggered(event)
        }
    }

    /// Closes a connection that has sent nothing for `idle_timeout` while it
    /// has nothing in flight, no watch and no agent role, so idle
    /// connections cannot hold `max_clients` slots forever. A busy one is
    /// left alone until the next timeout.
    private func closeIfIdle(_ context: ChannelHandlerContext) {
        guard let session, inFlight == 0, tasks.isEmpty, unprocessed.isEmpty, session.holdsNothing else { return }
        logger.info(
            "closing an idle connection (daemon.idle_timeout)",
            metadata: ["client": "uid=\(session.identity.uid) pid=\(session.identity.pid) conn=\(session.id)"])
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if error is ByteToMessageDecoderError.PayloadTooLargeError {
            // The line is lost, and with it the framing: say so, then close.
            direct.wentThroughPipeline()
            context.writeAndFlush(wrapOutboundOut(Self.lineTooLong(context.channel.allocator)), promise: nil)
        } else {
            logger.debug("connection failed", metadata: ["error": "\(error)"])
        }
        context.close(promise: nil)
    }

    static func lineTooLong(_ allocator: ByteBufferAllocator) -> ByteBuffer {
        Reply(
            RPCCodec.response(
                id: .null,
                error: .invalidRequest(
                    "line longer than \(RPCCodec.maximumLineLength) bytes; closing the connection"))
        ).line(allocator)!
    }

    // MARK: Writing: the one queue

    /// Queues the answer to a line taken (its slot is released once the
    /// answer is handed to the socket), then runs what it starts.
    private func enqueue(_ reply: Reply) {
        guard let context, context.channel.isActive else { return }
        let line: ByteBuffer?
        // One look at the body: a location answer is kept for reuse and written in place.
        switch reply.body {
        case .location(let answer, let id, let now)?:
            lastAnswer = answer
            line = Reply.line(answer, id: id, at: now, context.channel.allocator)
        case .message(let message)?:
            line = Reply.line(message, context.channel.allocator)
        case nil:
            line = nil
        }
        if let line {
            let record = auditBatch == nil ? nil : reply.record
            // Queued before the record is held: holding can release the batch at once.
            queue.append(line, isAnswer: true, heldForAudit: record != nil)
            if let record, let auditBatch { auditBatch.hold(record, for: self) }
        } else {
            inFlight -= 1
        }
        if let then = reply.then { own { _ in await then() } }
        writeOut()
    }

    /// Queues a message the daemon sends on its own (a `location.error`, a
    /// prompt to the agent): it holds no slot, and is never waited for.
    func post(_ message: JSONValue) {
        guard let context, context.channel.isActive else { return }
        let line = Reply.line(message, context.channel.allocator)
        queue.append(line, isAnswer: false, heldForAudit: false)
        writeOut()
    }

    /// The loop's audit batch wrote the records of the held answers.
    func auditWritten() {
        queue.releaseHeld()
        writeOut()
    }

    /// Hands the queue's ready lines to the socket, then takes unprocessed
    /// lines. A write can call back into the handler (the socket turning
    /// unwritable): such a call only asks the running pass to go round again.
    private func writeOut() {
        guard let context else { return }
        if writing {
            writeAgain = true
            return
        }
        writing = true
        var wrote = false
        repeat {
            writeAgain = false
            while let next = queue.nextLine() {
                context.write(wrapOutboundOut(next.bytes), promise: nil)
                wrote = true
                if next.isAnswer { inFlight -= 1 }
            }
            while queue.holdsUpdates, context.channel.isWritable,
                let update = queue.nextUpdate(context.channel.allocator)
            {
                context.write(wrapOutboundOut(update), promise: nil)
                wrote = true
            }
        } while writeAgain
        writing = false
        if wrote {
            direct.wentThroughPipeline()
            if inReadBurst { unflushed = true } else { context.flush() }
        }
        resume()
    }

    /// Writes a watch's update: straight to the socket while nothing is
    /// ahead of it (``DirectSend``), through NIO while something is, held
    /// (newest only) while answers wait or the client does not read.
    ///
    /// A line the socket takes whole reads this object's first fields and
    /// nothing else (not the context, not the channel: cold objects a
    /// watcher a fix, issue 40).
    func write(_ update: RenderedUpdate) {
        if queue.takesUpdatesDirectly, direct.isWritable {
            // Nothing unflushed may be overtaken.
            guard let rest = unflushed ? update.line : direct.send(update.line), let context else { return }
            direct.wentThroughPipeline()
            context.write(wrapOutboundOut(rest), promise: nil)
            if inReadBurst { unflushed = true } else { context.flush() }
        } else if context != nil {
            queue.hold(update)
            writeOut()
        }
    }

    func discard(subscription: Int) { queue.discard(subscription: subscription) }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        context.fireChannelWritabilityChanged()
        writeOut()
    }
}
