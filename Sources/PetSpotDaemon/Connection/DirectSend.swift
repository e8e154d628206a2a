import Glibc
import NIOCore

/// A connection's `location.update` lines sent with one `send(2)` on its
/// socket, from its event loop, while NIO holds nothing of the connection:
/// the watch path's cost per line (issue 40).
///
/// NIO's write path (the pipeline, its pending-writes queue, the flush, the
/// writability bookkeeping) cost about half of an event loop's time per
/// fix, for lines that nearly always go out whole at once. So an update
/// line goes straight to the socket when nothing can be ahead of it:
/// - nothing written through the pipeline is still in NIO (checked with
///   `bufferedWritableBytes`, and only after something went through it);
/// - the caller has nothing unflushed, and the connection is open: its
///   handler was not told it closed (``end()``, from `channelInactive` and
///   `handlerRemoved`).
///
/// Why the handler's word is enough, without asking the channel (whose
/// activity flag is two more cold objects a watcher a fix, issue 40): NIO
/// closes the descriptor on the loop, then calls out (failed write promises,
/// the close promise, `channelInactive` through the pipeline) before the
/// loop's next job. Update lines are only ever written from jobs of their
/// own (``WatchFanOut`` hands each fix to a loop with `execute`), never from
/// such a call-out, so no send comes between the close and ``end()``, and a
/// number the kernel may already have given another file is never written
/// to. A debug build checks it on every send.
///
/// What the socket does not take (a full buffer, a partial write, an error)
/// goes through NIO as before, which then waits for the socket to drain,
/// keeps the order and reports the error. The handler stays the one writer
/// of its socket: the two paths never both hold bytes of it.
struct DirectSend {
    /// The connected socket; `nil` for a channel without one (an
    /// `EmbeddedChannel` in tests), and once the connection closed.
    private var descriptor: CInt?
    /// Something went through the pipeline since NIO was last seen holding nothing.
    private var pipelineMayHold = false
    /// The connection's channel, kept: `context.channel` looks it up through the pipeline each time.
    private var channel: (any Channel)?

    /// Sends nothing directly (a handler not yet added).
    init() {}

    /// The connection's socket, read when its handler is added (on its loop).
    init(_ context: ChannelHandlerContext) {
        descriptor = try? context.pipeline.syncOperations.withUnsafeTransportIfAvailable(
            of: NIOBSDSocket.Handle.self
        ) { $0 }
        channel = context.channel
    }

    /// Nothing is sent directly any more (the connection is closing).
    mutating func end() {
        descriptor = nil
        channel = nil
    }

    /// Whether the channel takes writes (`channel.isWritable`); `false`
    /// before the handler is added and once the connection closed.
    ///
    /// A socket channel's writability follows the bytes NIO holds (its
    /// write-buffer watermarks): while nothing went through the pipeline
    /// since NIO was last seen holding nothing, it holds nothing and the
    /// channel is writable, so the channel's flag (one more cold object a
    /// watcher a fix, issue 40) is read only after something did. A channel
    /// without a socket (an `EmbeddedChannel`) is always asked.
    var isWritable: Bool {
        (descriptor != nil && !pipelineMayHold) || (channel?.isWritable ?? false)
    }

    /// The handler wrote through the pipeline: NIO may hold bytes.
    mutating func wentThroughPipeline() { pipelineMayHold = true }

    /// Sends `line` itself when nothing can be ahead of it.
    /// - Returns: what NIO must still write, in order: `nil` when the socket
    ///   took all of it; the line's rest after a partial write; the whole
    ///   line when it was not sent here. The caller writes and flushes it
    ///   through the pipeline, and calls ``wentThroughPipeline()``.
    mutating func send(_ line: ByteBuffer) -> ByteBuffer? {
        guard let descriptor, pipelineIsEmpty() else { return line }
        assert(channel?.isActive == true, "an update sent between NIO's close and channelInactive")
        var rest = line
        while true {
            let sent = rest.withUnsafeReadableBytes { bytes in
                Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL) | Int32(MSG_DONTWAIT))
            }
            if sent >= 0 {
                rest.moveReaderIndex(forwardBy: sent)
                return rest.readableBytes == 0 ? nil : rest
            }
            // A full socket or an error: NIO meets the same and handles it (waits, or closes).
            guard errno == EINTR else { return rest }
        }
    }

    private mutating func pipelineIsEmpty() -> Bool {
        guard pipelineMayHold else { return true }
        guard let buffered = try? channel?.syncOptions?.getOption(.bufferedWritableBytes), buffered == 0 else {
            return false
        }
        pipelineMayHold = false
        return true
    }
}
