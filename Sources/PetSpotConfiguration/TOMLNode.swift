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
    /// Lines inside multi-line strings are skipped (a small scanner follows
    /// TOML's strings, escapes and comments). A multi-line array whose
    /// continuation line starts with `[[`, `[{` or `[ [` is refused too (this
    /// check cannot tell it from a header, and toml++ asserts on `[[[x]]`);
    /// no configuration key takes nested arrays or inline tables.
    /// - Returns: the line (1-based) and byte column of the offending character
    ///   (after a leading byte order mark), or `nil`.
    static func unparsableHeader(in text: String) -> (line: Int, column: Int)? {
        var bytes = Array(text.utf8)
        // toml++ skips a UTF-8 byte order mark at the start of the document.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }
        /// Where the scan is: outside strings, or inside one of TOML's four string kinds.
        enum Context { case normal, basic, literal, multilineBasic, multilineLiteral }
        let quote = UInt8(ascii: "\""), apostrophe = UInt8(ascii: "'"), newline = UInt8(ascii: "\n")
        var context = Context.normal
        var line = 1
        var lineStart = 0
        var atLineStart = true
        var index = 0
        func starts(_ byte: UInt8, times: Int) -> Bool {
            index + times <= bytes.count && bytes[index..<(index + times)].allSatisfy { $0 == byte }
        }
        while index < bytes.count {
            if atLineStart && context == .normal {
                atLineStart = false
                var position = index
                while position < bytes.count && (bytes[position] == 0x20 || bytes[position] == 0x09) { position += 1 }
                if position < bytes.count && bytes[position] == UInt8(ascii: "[") {
                    position += 1
                    if position < bytes.count && bytes[position] == UInt8(ascii: "[") { position += 1 }
                    while position < bytes.count && (bytes[position] == 0x20 || bytes[position] == 0x09) {
                        position += 1
                    }
                    if position >= bytes.count || !mayFollowBracket(bytes[position]) {
                        return (line, position - lineStart + 1)
                    }
                }
            }
            let byte = bytes[index]
            if byte == newline {
                line += 1
                lineStart = index + 1
                atLineStart = true
                if context == .basic || context == .literal { context = .normal }  // unterminated: toml++ reports it
                index += 1
                continue
            }
            switch context {
            case .normal:
                if byte == UInt8(ascii: "#") {
                    while index < bytes.count && bytes[index] != newline { index += 1 }  // comment
                    continue
                } else if starts(quote, times: 3) {
                    context = .multilineBasic
                    index += 3
                    continue
                } else if starts(apostrophe, times: 3) {
                    context = .multilineLiteral
                    index += 3
                    continue
                } else if byte == quote {
                    context = .basic
                } else if byte == apostrophe {
                    context = .literal
                }
            case .basic:
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if byte == quote { context = .normal }
            case .literal:
                if byte == apostrophe { context = .normal }
            case .multilineBasic:
                if byte == UInt8(ascii: "\\") {
                    index += 2
                    continue
                }
                if starts(quote, times: 3) {
                    context = .normal
                    index += 3
                    continue
                }
            case .multilineLiteral:
                if starts(apostrophe, times: 3) {
                    context = .normal
                    index += 3
                    continue
                }
            }
            index += 1
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
