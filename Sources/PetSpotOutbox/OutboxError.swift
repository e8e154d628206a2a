/// Why an outbox operation failed. ``description`` is fit to show: the
/// kiosk shows ``storageFull`` to the person reporting.
public enum OutboxError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The disk (or the database) is full; nothing was written.
    case storageFull(detail: String)
    /// A file operation failed.
    case io(String)
    /// SQLite failed.
    case database(String)
    /// No report has this id (or prefix).
    case notFound(String)
    /// The id prefix matches more than one report.
    case ambiguous(String)
    /// The operation does not apply to the report in its state.
    case notAllowed(String)
    /// The report cannot be queued as given.
    case invalidReport(String)

    public var description: String {
        switch self {
        case .storageFull(let detail):
            "The station's storage is full, so the report could not be saved. Please tell the staff. (\(detail))"
        case .io(let message): message
        case .database(let message): "outbox database: \(message)"
        case .notFound(let id): "no report \(id) in the outbox"
        case .ambiguous(let prefix): "\(prefix) matches more than one report: give more of the id"
        case .notAllowed(let message): message
        case .invalidReport(let message): "cannot queue the report: \(message)"
        }
    }

    /// Whether this is ``storageFull``.
    public var isStorageFull: Bool {
        if case .storageFull = self { return true }
        return false
    }
}
