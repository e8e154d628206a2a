/// Capped exponential backoff between connection attempts: the first delay
/// is `initial`, each further one doubles, never above `cap`.
struct ReconnectBackoff: Sendable {
    let initial: Duration
    let cap: Duration
    private(set) var last: Duration?

    init(initial: Duration, cap: Duration) {
        self.initial = max(initial, .milliseconds(1))
        self.cap = max(cap, self.initial)
    }

    /// The delay before the next attempt.
    mutating func next() -> Duration {
        let delay = last.map { min($0 * 2, cap) } ?? initial
        last = delay
        return delay
    }

    /// Starts over at `initial` (after a session in which gpsd spoke).
    mutating func reset() { last = nil }
}
