import NIOCore
import PetSpotProtocol
import Synchronization

/// Everything one connection writes, in order: the rules of its socket in
/// one place (each connection's handler is its only user, on the
/// connection's event loop: ``ConnectionHandler`` on the protocol socket,
/// ``NMEAConsumerHandler`` on the NMEA socket, which only holds updates).
///
/// - Lines (answers, and messages the daemon sends on its own) leave in the
///   order they were queued; a line held for its audit record holds back
///   every line after it until ``releaseHeld()``.
/// - `location.update` lines go straight out while nothing waits and the
///   client reads; otherwise each subscription keeps only its newest
///   undelivered update (SPEC §5: a watcher that does not read never slows
///   other clients), sent once the lines ahead are out and the client
///   reads again. A held update measures its `age` again when it goes out,
///   so a line that waited says so.
struct OutboundQueue {
    private struct Line {
        var bytes: ByteBuffer
        /// An answer to a line (it holds a request slot), not a message of the daemon's own.
        var isAnswer: Bool
    }

    // The two fields a watch update reads first (``takesUpdatesDirectly``), together.
    private var lines = CircularBuffer<Line>()
    /// `updates.count`, kept here: a dictionary that ever held an update
    /// keeps its storage, one more cold object a watcher a fix (issue 40).
    private var heldUpdates = 0
    /// How many lines, from the front, may go: the lines behind the first
    /// one held for its audit record wait with it. (A count, not a flag per
    /// line: releasing is then O(1), and nothing walks or copies the queue.)
    private var ready = 0
    /// Newest undelivered update per subscription, with its line's size when held.
    private var updates: [Int: (notification: UpdateNotification, bytes: Int)] = [:]

    /// Bytes of update lines held for clients that do not read, over every
    /// connection of the process (`petspot_held_update_bytes`).
    static let heldUpdateBytes = Atomic<Int>(0)

    /// Whether nothing waits to be written.
    var isEmpty: Bool { lines.isEmpty && heldUpdates == 0 }

    /// Whether an update is held (``nextUpdate(_:)`` may answer one).
    var holdsUpdates: Bool { heldUpdates > 0 }

    /// Queues `bytes`; `heldForAudit`: it (and every line after it) waits
    /// for ``releaseHeld()``.
    mutating func append(_ bytes: ByteBuffer, isAnswer: Bool, heldForAudit: Bool) {
        let allReady = ready == lines.count
        lines.append(Line(bytes: bytes, isAnswer: isAnswer))
        if allReady, !heldForAudit { ready += 1 }
    }

    /// The audit records of every held line are written: every line queued may go.
    mutating func releaseHeld() { ready = lines.count }

    /// The next line ready to go (not held for its audit record), and
    /// whether it answers a line; `nil` when none is.
    mutating func nextLine() -> (bytes: ByteBuffer, isAnswer: Bool)? {
        guard ready > 0 else { return nil }
        ready -= 1
        let first = lines.removeFirst()
        return (first.bytes, first.isAnswer)
    }

    /// The next held update (oldest subscription first), once no line
    /// waits, as `producer` writes it (by default a `location.update` line);
    /// its `age` measured now. The caller asks only while the client reads.
    mutating func nextUpdate(
        _ allocator: ByteBufferAllocator, as producer: some UpdateLines = JSONUpdateLines()
    ) -> ByteBuffer? {
        guard lines.isEmpty, let subscription = updates.keys.min(), let notification = release(subscription) else {
            return nil
        }
        return producer.line(notification, subscription: subscription, allocator: allocator)
    }

    /// Whether `update` may go straight out: nothing waits (the caller
    /// checks that the client reads).
    var takesUpdatesDirectly: Bool { lines.isEmpty && heldUpdates == 0 }

    /// Keeps `update` as its subscription's newest undelivered one.
    mutating func hold(_ update: RenderedUpdate) {
        // A held line measures its age when it goes out.
        release(update.subscription)
        let bytes = update.line.readableBytes
        updates[update.subscription] = (update.notification.unstamped, bytes)
        heldUpdates = updates.count
        Self.heldUpdateBytes.wrappingAdd(bytes, ordering: .relaxed)
    }

    /// Drops what `subscription` still has undelivered (it ended).
    mutating func discard(subscription: Int) { release(subscription) }

    /// Drops everything (the connection closed).
    mutating func discardAll() {
        for subscription in Array(updates.keys) { release(subscription) }
        lines.removeAll()
        ready = 0
    }

    @discardableResult
    private mutating func release(_ subscription: Int) -> UpdateNotification? {
        guard let held = updates.removeValue(forKey: subscription) else { return nil }
        heldUpdates = updates.count
        Self.heldUpdateBytes.wrappingSubtract(held.bytes, ordering: .relaxed)
        return held.notification
    }
}

/// What a connection writes for one watch update: the line producer of its
/// socket (`location.update` lines on the protocol socket, NMEA sentences on
/// the NMEA socket), so that every socket holds its updates by one rule.
protocol UpdateLines {
    /// The bytes for `notification` on `subscription`, its age measured now.
    func line(_ notification: UpdateNotification, subscription: Int, allocator: ByteBufferAllocator) -> ByteBuffer
}

/// The protocol socket's line producer: a `location.update` notification line.
struct JSONUpdateLines: UpdateLines {
    func line(_ notification: UpdateNotification, subscription: Int, allocator: ByteBufferAllocator) -> ByteBuffer {
        var buffer = allocator.buffer(capacity: notification.maximumLineLength)
        notification.write(subscription: subscription) { buffer.writeBytes($0) }
        return buffer
    }
}
