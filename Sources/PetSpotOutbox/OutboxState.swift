/// Where a report is on its way to the backend.
public enum OutboxState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Waiting for its next attempt (``OutboxEntry/nextAttemptAt``).
    case pending
    /// A sender is uploading it now.
    case delivering
    /// The backend has it (2xx or 409).
    case delivered
    /// The backend refused it (a 4xx other than 408, 409 and 429): kept for
    /// the operator, never retried automatically.
    case rejected
}
