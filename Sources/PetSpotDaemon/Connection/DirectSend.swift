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
/// - the caller has nothing unflushed, and the channel is active (checked on
///   the loop, where NIO closes the descriptor: an active channel's
///   descriptor is still this connection's, never a reused number).
///
/// What the socket does not take (a full buffer, a partial write, an error)
/// goes through NIO as before, which then waits for the socket to drain,
/// keeps the order and reports the error. The handler stays the one writer
/// of its socket: the two paths never both hold bytes of it.
struct DirectSend {
    /// The connected socket; `nil` for a channel without one (an
    /// `EmbeddedChannel` in tests), and once the connection closed.
    private var descriptor: CInt?
    /// The connection's channel, kept: `context.channel` looks it up through the pipeline each time.
    private var channel: (any Channel)?
    /// Something went through the pipeline since NIO was last seen holding nothing.
    private var pipelineMayHold = false

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

    /// Whether the channel takes writes (`context.channel.isWritable`).
    ///
    /// A socket channel's writability follows the bytes NIO holds (its
    /// write-buffer watermarks): while nothing went through the pipeline
    /// since NIO was last seen holding nothing, it holds nothing and the
    /// channel is writable, so the channel's flag (one more cold object a
    /// watcher a fix, issue 40) is read only after something did. A closed
    /// channel is caught by ``send(_:_:)``'s activity check. A channel
    /// without a socket (an `EmbeddedChannel`) is always asked.
    func isWritable(_ context: ChannelHandlerContext) -> Bool {
        (descriptor != nil && !pipelineMayHold) || (channel ?? context.channel).isWritable
    }

    /// The handler wrote through the pipeline: NIO may hold bytes.
    mutating func wentThroughPipeline() { pipelineMayHold = true }

    /// Sends `line` itself when nothing can be ahead of it.
    /// - Returns: what NIO must still write, in order: `nil` when the socket
    ///   took all of it; the line's rest after a partial write; the whole
    ///   line when it was not sent here. The caller writes and flushes it
    ///   through the pipeline, and calls ``wentThroughPipeline()``.
    mutating func send(_ line: ByteBuffer, _ context: ChannelHandlerContext) -> ByteBuffer? {
        guard let descriptor, let channel, channel.isActive, pipelineIsEmpty(channel) else { return line }
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

    private mutating func pipelineIsEmpty(_ channel: any Channel) -> Bool {
        guard pipelineMayHold else { return true }
        guard let buffered = try? channel.syncOptions?.getOption(.bufferedWritableBytes), buffered == 0 else {
            return false
        }
        pipelineMayHold = false
        return true
    }
}
