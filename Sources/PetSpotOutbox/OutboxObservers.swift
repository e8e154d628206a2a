import Synchronization

/// Callbacks run after each enqueue in this process.
final class OutboxObservers: Sendable {
    private let state = Mutex<(next: Int, observers: [Int: @Sendable () -> Void])>((0, [:]))

    func add(_ observer: @escaping @Sendable () -> Void) -> Int {
        state.withLock { state in
            state.next += 1
            state.observers[state.next] = observer
            return state.next
        }
    }

    func remove(_ token: Int) {
        _ = state.withLock { $0.observers.removeValue(forKey: token) }
    }

    func notify() {
        for observer in state.withLock({ Array($0.observers.values) }) { observer() }
    }
}
