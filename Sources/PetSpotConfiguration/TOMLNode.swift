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
    /// - Throws: `TOMLParseError` on a syntax error.
    package static func parse(_ text: String) throws -> [String: TOMLNode] {
        let table = try TOMLTable(string: text)
        return convert(table)
    }

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
