import FoundationEssentials

/// Capped exponential backoff with jitter: attempt n waits a random time
/// in [d/2, d] where d = min(cap, initial × 2^(n-1)).
package struct RetryBackoff: Sendable, Hashable {
    package var initial: TimeInterval
    package var cap: TimeInterval

    package init(initial: TimeInterval, cap: TimeInterval) {
        self.initial = max(0.001, initial)
        self.cap = max(self.initial, cap)
    }

    /// The upper bound of the wait after failed attempt `attempt` (1-based).
    package func ceiling(attempt: Int) -> TimeInterval {
        let exponent = Double(min(max(attempt, 1) - 1, 62))
        return min(cap, initial * Double(sign: .plus, exponent: Int(exponent), significand: 1))
    }

    /// The wait after failed attempt `attempt`, jittered.
    package func delay(attempt: Int, using generator: inout some RandomNumberGenerator) -> TimeInterval {
        let ceiling = ceiling(attempt: attempt)
        return Double.random(in: (ceiling / 2)...ceiling, using: &generator)
    }

    package func delay(attempt: Int) -> TimeInterval {
        var generator = SystemRandomNumberGenerator()
        return delay(attempt: attempt, using: &generator)
    }
}
