import NIOConcurrencyHelpers
import NIOCore

/// Keeps every accepted connection alive from the moment NIO sets it up
/// until a task takes it over.
///
/// NIO wraps an accepted socket in an `NIOAsyncChannel` inside the child
/// initializer and then hands responsibility for it to whoever iterates the
/// server's stream. A connection accepted while the server shuts down is
/// never iterated; if nothing held it, its writer would be released
/// unfinished, which NIO treats as a programming error and traps on. This
/// registry holds each one until ``take(_:)`` and closes the leftovers in
/// ``closeUnclaimed()``. (A lock, not an actor: the child initializer runs
/// synchronously on an event loop.)
final class AcceptedConnections: Sendable {
    private let held = NIOLockedValueBox<[UInt64: NIOAsyncChannel<ByteBuffer, ByteBuffer>]>([:])
    private let counter = NIOLockedValueBox<UInt64>(0)

    /// Holds `channel`; returns the ticket to ``take(_:)`` it with.
    func hold(_ channel: NIOAsyncChannel<ByteBuffer, ByteBuffer>) -> UInt64 {
        let ticket = counter.withLockedValue { value -> UInt64 in
            value += 1
            return value
        }
        held.withLockedValue { $0[ticket] = channel }
        return ticket
    }

    /// Hands the connection over to its serving task.
    func take(_ ticket: UInt64) {
        _ = held.withLockedValue { $0.removeValue(forKey: ticket) }
    }

    /// Closes, properly, every connection no task took over.
    func closeUnclaimed() async {
        let leftovers = held.withLockedValue { held -> [NIOAsyncChannel<ByteBuffer, ByteBuffer>] in
            defer { held.removeAll() }
            return Array(held.values)
        }
        for channel in leftovers {
            try? await channel.executeThenClose { _, _ in }
        }
    }
}
