/// Writes one JSON object member by member, in the order given, without
/// building a dictionary: for lines the daemon writes on every request
/// (audit records), where a `[String: JSONValue]` and its sort cost more
/// than the line.
///
/// The caller adds members in ascending key order, so the bytes are the
/// canonical (sorted-key) form ``JSONValue/write(utf8:)`` produces; debug
/// builds check the order. Absent (`nil`) values are omitted.
public struct JSONObjectWriter {
    /// The object so far; complete after ``finish()``.
    public private(set) var bytes: [UInt8]
    private var lastKey: String?

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
        bytes.append(UInt8(ascii: "{"))
    }

    private mutating func key(_ key: String) {
        assert(lastKey.map { $0 < key } ?? true, "JSONObjectWriter: \(key) added after \(lastKey ?? "")")
        if lastKey != nil { bytes.append(UInt8(ascii: ",")) }
        lastKey = key
        JSONValue.writeString(key, utf8: &bytes)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Adds `key` with a string value, unless `nil`.
    public mutating func add(_ key: String, string value: String?) {
        guard let value else { return }
        self.key(key)
        JSONValue.writeString(value, utf8: &bytes)
    }

    /// Adds `key` with a number value, unless `nil` (non-finite numbers are `null`, as in ``JSONValue``).
    public mutating func add(_ key: String, number value: Double?) {
        guard let value else { return }
        self.key(key)
        JSONNumber.write(value, utf8: &bytes)
    }

    /// Adds `key` with any value, unless `nil`.
    public mutating func add(_ key: String, _ value: JSONValue?) {
        guard let value else { return }
        self.key(key)
        value.write(utf8: &bytes)
    }

    /// Adds `key` with a finished object.
    public mutating func add(_ key: String, object: JSONObjectWriter) {
        add(key, serialized: object.bytes)
    }

    /// Adds `key` with a value already serialized as JSON (compact, UTF-8).
    public mutating func add(_ key: String, serialized value: [UInt8]) {
        self.key(key)
        bytes.append(contentsOf: value)
    }

    /// Closes the object.
    public mutating func finish() {
        bytes.append(UInt8(ascii: "}"))
    }
}
