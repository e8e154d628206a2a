import FoundationEssentials

/// The sender's time: when attempts are due and waiting for them. Injected
/// so that tests can run hours of backoff in seconds.
public protocol DeliveryClock: Sendable {
    /// The current wall-clock time (what the outbox stores).
    var now: Date { get }
    /// Sleeps until `date`, or throws `CancellationError` when cancelled.
    func sleep(until date: Date) async throws
}

/// The real time.
public struct SystemDeliveryClock: DeliveryClock {
    public init() {}
    public var now: Date { Date() }
    public func sleep(until date: Date) async throws {
        let seconds = date.timeIntervalSinceNow
        guard seconds > 0 else { return }
        try await Task.sleep(for: .milliseconds(Int64((seconds * 1000).rounded(.up))))
    }
}
