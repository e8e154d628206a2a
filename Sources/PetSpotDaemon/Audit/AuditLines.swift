/// Audit lines collected to be appended together with one `write(2)`
/// (``AuditLog/append(_:)``): the records of answers produced in one pass
/// of an event loop (``AuditBatch``).
public struct AuditLines: Sendable {
    /// The lines, one after the other, newlines included.
    public private(set) var bytes: [UInt8] = []
    /// Where each line ends in ``bytes``.
    public private(set) var ends: [Int] = []

    public init() {}

    /// Whether there is no line.
    public var isEmpty: Bool { ends.isEmpty }
    /// How many lines there are.
    public var count: Int { ends.count }

    /// Adds one line (an ``AuditRecord/jsonLine``, newline included).
    public mutating func append(_ line: [UInt8]) {
        bytes.append(contentsOf: line)
        ends.append(bytes.count)
    }

    /// Empties the collection, keeping its storage for the next pass.
    public mutating func removeAll() {
        bytes.removeAll(keepingCapacity: true)
        ends.removeAll(keepingCapacity: true)
    }
}
