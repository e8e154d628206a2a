/// A problem with one member of a JSON document; `path` names it
/// (`steps[2].fix.latitude`, `params.timeout`).
public struct JSONFieldError: Error, Sendable, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { path.isEmpty ? message : "\(path): \(message)" }
}

/// Typed, path-aware reading of a JSON object's members: every accessor
/// fails with a ``JSONFieldError`` that names the member and what it must be.
public struct JSONFields: Sendable {
    /// The object's members.
    public let members: [String: JSONValue]
    /// Where the object sits in its document ("" for the root).
    public let path: String

    /// Reads `value` as an object.
    /// - Throws: ``JSONFieldError`` when it is not one.
    public init(_ value: JSONValue, path: String = "") throws(JSONFieldError) {
        guard case .object(let members) = value else {
            throw JSONFieldError(path: path, message: "must be an object, not \(value.typeName)")
        }
        self.members = members
        self.path = path
    }

    /// The full path of member `key`.
    public func path(of key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Fails naming every member not in `known`.
    public func rejectUnknown(_ known: Set<String>) throws(JSONFieldError) {
        let unknown = members.keys.filter { !known.contains($0) }.sorted()
        guard unknown.isEmpty else {
            let names = unknown.map { path(of: $0) }.joined(separator: ", ")
            throw JSONFieldError(path: path, message: "unknown \(unknown.count == 1 ? "member" : "members") \(names)")
        }
    }

    /// Whether `key` is present (and not null).
    public func has(_ key: String) -> Bool {
        if let value = members[key], value != .null { return true }
        return false
    }

    /// A number, or `nil` when absent or null.
    public func number(_ key: String) throws(JSONFieldError) -> Double? {
        switch members[key] {
        case nil, .null?: return nil
        case .number(let value)?: return value
        case let other?: throw JSONFieldError(path: path(of: key), message: "must be a number, not \(other.typeName)")
        }
    }

    /// A number in `range`, or `nil` when absent.
    public func number(_ key: String, in range: ClosedRange<Double>) throws(JSONFieldError) -> Double? {
        guard let value = try number(key) else { return nil }
        guard range.contains(value) else {
            throw JSONFieldError(
                path: path(of: key),
                message:
                    "must be between \(JSONValue.format(range.lowerBound)) and \(JSONValue.format(range.upperBound)), not \(JSONValue.format(value))"
            )
        }
        return value
    }

    /// A whole number in `range`, or `nil` when absent.
    public func integer(_ key: String, in range: ClosedRange<Int>) throws(JSONFieldError) -> Int? {
        guard let value = try number(key) else { return nil }
        guard value == value.rounded(), Double(range.lowerBound) <= value, value <= Double(range.upperBound) else {
            throw JSONFieldError(
                path: path(of: key),
                message:
                    "must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(JSONValue.format(value))"
            )
        }
        return Int(value)
    }

    /// A string, or `nil` when absent.
    public func string(_ key: String) throws(JSONFieldError) -> String? {
        switch members[key] {
        case nil, .null?: return nil
        case .string(let value)?: return value
        case let other?: throw JSONFieldError(path: path(of: key), message: "must be a string, not \(other.typeName)")
        }
    }

    /// One of a fixed set of strings, or `nil` when absent.
    public func choice<T: RawRepresentable>(_ key: String, of type: T.Type, allowed: [T]) throws(JSONFieldError) -> T?
    where T.RawValue == String {
        guard let text = try string(key) else { return nil }
        guard let value = T(rawValue: text), allowed.contains(where: { $0.rawValue == value.rawValue }) else {
            let names = allowed.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            throw JSONFieldError(path: path(of: key), message: "must be one of \(names), not \"\(text)\"")
        }
        return value
    }

    /// A boolean, or `nil` when absent.
    public func bool(_ key: String) throws(JSONFieldError) -> Bool? {
        switch members[key] {
        case nil, .null?: return nil
        case .bool(let value)?: return value
        case let other?:
            throw JSONFieldError(path: path(of: key), message: "must be true or false, not \(other.typeName)")
        }
    }

    /// A nested object, or `nil` when absent.
    public func object(_ key: String) throws(JSONFieldError) -> JSONFields? {
        guard let value = members[key], value != .null else { return nil }
        return try JSONFields(value, path: path(of: key))
    }

    /// An array, or `nil` when absent.
    public func array(_ key: String) throws(JSONFieldError) -> [JSONValue]? {
        switch members[key] {
        case nil, .null?: return nil
        case .array(let values)?: return values
        case let other?: throw JSONFieldError(path: path(of: key), message: "must be an array, not \(other.typeName)")
        }
    }

    /// Fails when `key` is absent.
    public func required<T>(_ key: String, _ value: T?) throws(JSONFieldError) -> T {
        guard let value else { throw JSONFieldError(path: path(of: key), message: "is required") }
        return value
    }
}
