import FoundationEssentials
import Synchronization

/// Wakes waiting sender workers early: a report was queued, or another
/// worker finished one. Waiters pass the generation they last saw, so a
/// signal between their check and their wait is never lost.
final class WakeupSignal: Sendable {
    private struct State {
        var generation = 0
        var nextWaiter = 0
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        /// Waiters between taking an id and storing their continuation.
        var unregistered: Set<Int> = []
        /// Of those, the ones already cancelled.
        var cancelled: Set<Int> = []
    }

    private let state = Mutex(State())

    /// The current generation (read before checking for work).
    var generation: Int { state.withLock { $0.generation } }

    /// Wakes every waiter.
    func signal() {
        let waiters = state.withLock { state in
            state.generation += 1
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until a signal after `generation`, `date` on `clock`, or cancellation.
    func wait(since generation: Int, until date: Date, clock: any DeliveryClock) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { try? await clock.sleep(until: date) }
            group.addTask { await self.waitForSignal(since: generation) }
            await group.next()
            group.cancelAll()
        }
    }

    private func waitForSignal(since generation: Int) async {
        let id = state.withLock { state in
            state.nextWaiter += 1
            state.unregistered.insert(state.nextWaiter)
            return state.nextWaiter
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state in
                    state.unregistered.remove(id)
                    if state.cancelled.remove(id) != nil || state.generation != generation { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                if let waiter = state.waiters.removeValue(forKey: id) { return Optional(waiter) }
                if state.unregistered.contains(id) { state.cancelled.insert(id) }
                return nil
            }
            waiter?.resume()
        }
    }
}
