import PetSpotLocation
import Synchronization

/// A watch's stream and what its end does, whenever it comes (the consumer
/// stops iterating on any thread, at any moment): before the daemon has
/// answered, nothing here (the caller cancels the wait, and the watch is
/// forgotten); after, the subscription is unwatched, at once if the stream
/// ended while the answer was on its way.
final class WatchStream: Sendable {
    private enum State {
        case waiting
        case subscribed(@Sendable () -> Void)
        case ended
    }

    let continuation: AsyncThrowingStream<LocationFix, any Error>.Continuation
    private let state = Mutex(State.waiting)

    init(_ continuation: AsyncThrowingStream<LocationFix, any Error>.Continuation) {
        self.continuation = continuation
    }

    /// The subscription is in place: `unwatch` ends it when the stream ends.
    func subscribed(_ unwatch: @escaping @Sendable () -> Void) {
        let ended = state.withLock { state in
            if case .ended = state { return true }
            state = .subscribed(unwatch)
            return false
        }
        if ended { unwatch() }
    }

    /// The stream has ended (its `onTermination`).
    func ended() {
        let unwatch = state.withLock { state -> (@Sendable () -> Void)? in
            defer { state = .ended }
            if case .subscribed(let unwatch) = state { return unwatch }
            return nil
        }
        unwatch?()
    }
}
