import Synchronization

/// A waiter's continuation, resumed exactly once by whichever comes first:
/// the event it waits for (on the actor that keeps the waiter), or its
/// task's cancellation (the handler is synchronous and runs off that
/// actor). A cancelled waiter is so resumed at once, and removes itself from
/// the actor when it runs again there: no task is spawned to tell the actor.
package final class ResumeOnce<Value: Sendable>: Sendable {
    private enum State {
        case idle
        case waiting(CheckedContinuation<Value, Never>)
        case done
    }

    private let state = Mutex(State.idle)

    package init() {}

    /// Keeps `continuation` to resume later.
    /// - Returns: `false` when this was resumed already (cancelled before
    ///   it waited): the caller resumes `continuation` itself.
    package func wait(_ continuation: CheckedContinuation<Value, Never>) -> Bool {
        state.withLock { state in
            guard case .idle = state else { return false }
            state = .waiting(continuation)
            return true
        }
    }

    /// Resumes the waiter with `value`, unless it was resumed already.
    package func resume(_ value: Value) {
        let continuation: CheckedContinuation<Value, Never>? = state.withLock { state in
            defer { state = .done }
            if case .waiting(let continuation) = state { return continuation }
            return nil
        }
        continuation?.resume(returning: value)
    }
}
