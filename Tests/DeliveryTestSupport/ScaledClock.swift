import Foundation
import PetSpotDelivery

/// A clock that runs `factor` times faster than real time from its
/// creation: minutes of backoff pass in seconds.
public struct ScaledClock: DeliveryClock {
    public let factor: Double
    private let origin = Date()
    private let started = ContinuousClock.now

    public init(factor: Double) { self.factor = factor }

    public var now: Date {
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return origin.addingTimeInterval(seconds * factor)
    }

    public func sleep(until date: Date) async throws {
        let seconds = date.timeIntervalSince(now) / factor
        guard seconds > 0 else { return }
        try await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }
}
