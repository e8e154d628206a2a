import TOMLKit

/// A parsed TOML value as plain Swift values (TOMLKit's tables are
/// reference types over C++ nodes and not `Sendable`).
enum TOMLNode: Sendable {
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
    static func parse(_ text: String) throws -> [String: TOMLNode] {
        let table = try TOMLTable(string: text)
        return convert(table)
    }

    /// The first table header that toml++ (under TOMLKit) cannot be given:
    /// one whose name starts with a character that is neither a bare-key
    /// character nor a quote (`[é]`, `[#]`, `[[=]]`). toml++ 3 asserts on
    /// those instead of reporting a syntax error, which aborts the process
    /// (found by Fuzz/fuzz-config), so they are refused before parsing.
    ///
    /// Lines inside multi-line strings are skipped. A multi-line array whose
    /// continuation line starts with `[[`, `[{` or `[ [` is refused too (this
    /// check cannot tell it from a header, and toml++ asserts on `[[[x]]`);
    /// no configuration key takes nested arrays or inline tables.
    /// - Returns: the line (1-based) and byte column of the offending character
    ///   (after a leading byte order mark), or `nil`.
    static func unparsableHeader(in text: String) -> (line: Int, column: Int)? {
        var inBasic = false  // inside """ … """
        var inLiteral = false  // inside ''' … '''
        for (index, line) in text.utf8.split(separator: 0x0A, omittingEmptySubsequences: false).enumerated() {
            var bytes = Array(line)
            // toml++ skips a UTF-8 byte order mark at the start of the document.
            if index == 0 && bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
            if !inBasic && !inLiteral, let first = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 }),
                bytes[first] == UInt8(ascii: "[")
            {
                var position = first + 1
                if position < bytes.count && bytes[position] == UInt8(ascii: "[") { position += 1 }
                while position < bytes.count && (bytes[position] == 0x20 || bytes[position] == 0x09) { position += 1 }
                if position >= bytes.count || !mayFollowBracket(bytes[position]) { return (index + 1, position + 1) }
            }
            inBasic = inBasic != (occurrences(of: Array("\"\"\"".utf8), in: bytes) % 2 == 1)
            inLiteral = inLiteral != (occurrences(of: Array("'''".utf8), in: bytes) % 2 == 1)
        }
        return nil
    }

    /// Whether `byte` may follow a line's opening `[` (or `[[`): a key's
    /// first character, a bare-key character or a quote.
    private static func mayFollowBracket(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "\""),
            UInt8(ascii: "'"):
            true
        default: false
        }
    }

    private static func occurrences(of needle: [UInt8], in bytes: [UInt8]) -> Int {
        guard bytes.count >= needle.count else { return 0 }
        var count = 0
        var position = 0
        while position + needle.count <= bytes.count {
            if bytes[position..<(position + needle.count)].elementsEqual(needle) {
                count += 1
                position += needle.count
            } else {
                position += 1
            }
        }
        return count
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
    var typeDescription: String {
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
