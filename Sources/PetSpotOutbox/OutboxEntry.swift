import FoundationEssentials

/// One report as the operator sees it: states, times and errors, no
/// personal data (no contact, no position, no photo). Only the outbox
/// makes one (``Outbox/entries(states:limit:)``, ``Outbox/entry(_:)``).
public struct OutboxEntry: Sendable, Hashable, Codable {
    /// The report id, a lowercase UUID (also the `Idempotency-Key`).
    public var id: String
    public var state: OutboxState
    /// When the report was submitted.
    public var createdAt: Date
    /// When the outbox acknowledged it.
    public var enqueuedAt: Date
    /// Uploads started so far.
    public var attempts: Int
    /// When a pending report is next tried.
    public var nextAttemptAt: Date?
    public var lastAttemptAt: Date?
    /// The HTTP status of the last answer, when there was one.
    public var lastStatus: Int?
    /// What went wrong last (HTTP status and the backend's message, or the
    /// network error), or a note about the last answer.
    public var lastError: String?
    public var deliveredAt: Date?
    public var rejectedAt: Date?
    /// The backend's id for the announcement (the answer's JSON `id`).
    public var backendReference: String?
    /// When the photo and personal data were deleted (``Outbox/purgeDelivered(before:now:)``).
    public var purgedAt: Date?
    /// The photo's size in bytes.
    public var photoBytes: Int
}

/// The outbox in figures, for a status page: counts and times only, no
/// personal data and no error text from the backend.
public struct OutboxSummary: Sendable, Hashable, Codable {
    public var pending: Int
    public var delivering: Int
    public var delivered: Int
    public var rejected: Int
    /// Delivered reports whose photo and personal data are already deleted.
    public var purged: Int
    /// When the oldest report not yet delivered (pending or delivering) was submitted.
    public var oldestUndeliveredAt: Date?
    /// The earliest next attempt of a pending report.
    public var nextAttemptAt: Date?
    public var lastDeliveredAt: Date?
    /// When the last attempt of any report ended in an error, and its HTTP status if any.
    public var lastFailureAt: Date?
    public var lastFailureStatus: Int?
    /// Databases found corrupt and moved aside (file names in the outbox directory).
    public var corruptDatabases: [String]

    public init(
        pending: Int = 0, delivering: Int = 0, delivered: Int = 0, rejected: Int = 0, purged: Int = 0,
        oldestUndeliveredAt: Date? = nil, nextAttemptAt: Date? = nil, lastDeliveredAt: Date? = nil,
        lastFailureAt: Date? = nil, lastFailureStatus: Int? = nil, corruptDatabases: [String] = []
    ) {
        self.pending = pending
        self.delivering = delivering
        self.delivered = delivered
        self.rejected = rejected
        self.purged = purged
        self.oldestUndeliveredAt = oldestUndeliveredAt
        self.nextAttemptAt = nextAttemptAt
        self.lastDeliveredAt = lastDeliveredAt
        self.lastFailureAt = lastFailureAt
        self.lastFailureStatus = lastFailureStatus
        self.corruptDatabases = corruptDatabases
    }
}
