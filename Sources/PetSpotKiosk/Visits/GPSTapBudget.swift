/// How often one visit may ask the location daemon (the GPS button):
/// one request at a time, and at most ``burst`` started in any ``window``.
///
/// A visitor taps a few times; a script posting the button 100 times in
/// 0.2 s makes at most ``burst`` daemon requests, and the rest are answered
/// "please wait" without asking.
public struct GPSTapBudget: Sendable, Hashable {
    /// Requests that may start within one ``window``.
    public static let burst = 3
    /// The window ``burst`` counts in.
    public static let window: Duration = .seconds(10)

    /// Whether a request of this visit is waiting for the daemon.
    public private(set) var inFlight = false
    private var started: [ContinuousClock.Instant] = []

    public init() {}

    /// Starts a request at `now` if the budget allows one. - Returns: whether it may ask the daemon.
    public mutating func start(at now: ContinuousClock.Instant) -> Bool {
        guard !inFlight else { return false }
        started.removeAll { now - $0 >= Self.window }
        guard started.count < Self.burst else { return false }
        started.append(now)
        inFlight = true
        return true
    }

    /// The request has its answer.
    public mutating func finish() { inFlight = false }
}
