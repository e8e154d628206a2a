import Synchronization
import TOMLKit

/// A parsed TOML value as plain Swift values (TOMLKit's tables are
/// reference types over C++ nodes and not `Sendable`).
package enum TOMLNode: Sendable {
    case string(String)
    case integer(Int)
    case float(Double)
    case boolean(Bool)
    case table([String: TOMLNode])
    case array([TOMLNode])
    /// A date, time or date-time; configuration keys never take one.
    case other(String)

    /// Parses TOML text.
    ///
    /// TOMLKit (0.6) never frees what it parses: the document's C++ table,
    /// and the key and value arrays every walk over a table allocates, stay
    /// allocated for good (about 5 KB for a daemon configuration; issue 41's
    /// station-week soak). So the last text parsed is remembered with its
    /// result: a reload of an unchanged file (SIGHUP from a package upgrade,
    /// a monitoring check, `systemctl reload` for nothing) costs nothing, and
    /// what stays is bounded by the number of different texts parsed, which
    /// an operator's edits make.
    ///
    /// - Throws: `TOMLParseError` on a syntax error.
    package static func parse(_ text: String) throws -> [String: TOMLNode] {
        if let remembered = lastParsed.withLock({ $0?.text == text ? $0?.table : nil }) { return remembered }
        let table = convert(try TOMLTable(string: text))
        lastParsed.withLock { $0 = (text, table) }
        return table
    }

    /// The last text ``parse(_:)`` parsed without error, and its result.
    private static let lastParsed = Mutex<(text: String, table: [String: TOMLNode])?>(nil)

    private static func convert(_ table: TOMLTable) -> [String: TOMLNode] {
        var result: [String: TOMLNode] = [:]
        for (key, value) in table { result[key] = convert(value) }
        return result
    }

    private static func convert(_ value: any TOMLValueConvertible) -> TOMLNode {
        switch value.type {
        case .string: .string(value.string ?? "")
        case .int: .integer(value.int ?? 0)
        case .double: .float(value.double ?? .nan)
        case .bool: .boolean(value.bool ?? false)
        case .table: value.table.map { .table(convert($0)) } ?? .table([:])
        case .array: value.array.map { array in .array(array.map { convert($0) }) } ?? .array([])
        case .date: .other("a date")
        case .time: .other("a time")
        case .dateTime: .other("a date-time")
        }
    }

    /// The value's type with an article, for messages ("found an integer").
    package var typeDescription: String {
        switch self {
        case .string: "a string"
        case .integer: "an integer"
        case .float: "a float"
        case .boolean: "a boolean"
        case .table: "a table"
        case .array: "an array"
        case .other(let description): description
        }
    }
}
