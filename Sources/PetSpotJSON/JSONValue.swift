import FoundationEssentials

/// A JSON document as a value tree, for protocols whose shape is checked by
/// hand (JSON-RPC parameters, scenario files) so every error can name the
/// exact member at fault.
///
/// Decoding is a strict RFC 8259 parser over the UTF-8 bytes (booleans are
/// not numbers; see ``parse(bytes:)``); encoding is ``serialized()``, which
/// writes compact JSON with sorted keys and never emits NaN or infinity.
public enum JSONValue: Sendable, Hashable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// Parses one JSON document.
    /// - Throws: an error naming the byte offset when `data` is not JSON.
    public static func parse(_ data: Data) throws -> JSONValue {
        try data.withUnsafeBytes { raw throws -> JSONValue in try JSONParser.parse(raw) }
    }

    /// Parses one JSON document from UTF-8 bytes, strictly (RFC 8259: no
    /// comments, trailing commas, leading zeros, NaN, unescaped control
    /// characters, lone surrogates or invalid UTF-8; nesting at most 512 deep).
    ///
    /// The daemon parses every request line with this: it reads contiguous
    /// bytes in place (a `ByteBuffer` view, an array) without copying them
    /// into `Data` first.
    /// - Throws: an error naming the byte offset when `bytes` is not JSON.
    public static func parse(bytes: some Collection<UInt8>) throws -> JSONValue {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(JSONParser.Failure) -> JSONValue in try JSONParser.parse(UnsafeRawBufferPointer(buffer))
            }
        }
        if let result { return try result.get() }
        return try Array(bytes).withUnsafeBytes { raw throws -> JSONValue in try JSONParser.parse(raw) }
    }

    /// The member `key` of an object, else `nil`.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The JSON type name, for error messages.
    public var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "boolean"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// Compact JSON text.
    public func serialized() -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320)
        write(utf8: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends compact JSON text to `output`.
    public func write(into output: inout String) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(320)
        write(utf8: &bytes)
        output += String(decoding: bytes, as: UTF8.self)
    }

    /// Appends compact JSON as UTF-8 to `output`: the serializer itself.
    /// Bytes rather than `String` appends, which cost a capacity and
    /// flags check each (this runs for every answer and every watcher update).
    public func write(utf8 output: inout [UInt8]) {
        switch self {
        case .null: output.append(contentsOf: "null".utf8)
        case .bool(let value): output.append(contentsOf: value ? "true".utf8 : "false".utf8)
        case .number(let value): JSONNumber.write(value, utf8: &output)
        case .string(let value): JSONValue.writeString(value, utf8: &output)
        case .array(let values):
            output.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                value.write(utf8: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            // Sort the pairs once rather than the keys and then look each up again.
            for (index, member) in members.sorted(by: { $0.key < $1.key }).enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                JSONValue.writeString(member.key, utf8: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(utf8: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Appends `value` as a JSON string literal (UTF-8) to `output`.
    static func writeString(_ value: String, utf8 output: inout [UInt8]) {
        var value = value
        value.withUTF8 { bytes in
            output.append(UInt8(ascii: "\""))
            var clean = 0  // start of the run of bytes that need no escape
            for (index, byte) in bytes.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[clean..<index]))
                clean = index + 1
                switch byte {
                case 0x22: output.append(contentsOf: #"\""#.utf8)
                case 0x5C: output.append(contentsOf: #"\\"#.utf8)
                case 0x0A: output.append(contentsOf: #"\n"#.utf8)
                case 0x0D: output.append(contentsOf: #"\r"#.utf8)
                case 0x09: output.append(contentsOf: #"\t"#.utf8)
                default:
                    let hex = String(byte, radix: 16)
                    output.append(contentsOf: "\\u".utf8)
                    output.append(contentsOf: String(repeating: "0", count: 4 - hex.count).utf8)
                    output.append(contentsOf: hex.utf8)
                }
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[clean...]))
            output.append(UInt8(ascii: "\""))
        }
    }

    /// A number as JSON: integral values without a fraction, non-finite as null.
    /// Otherwise Swift's shortest text that reads back as `value`
    /// (``JSONNumber/write(_:utf8:)`` writes the same bytes without a `String`).
    public static func format(_ value: Double) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        JSONNumber.write(value, utf8: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A string literal with the escapes JSON requires, and DEL (U+007F)
    /// escaped too: the result is then also a TOML basic string that reads
    /// back as `value` (the configuration writer quotes with it).
    public static func writeString(_ value: String, into output: inout String) {
        // Fast path: nothing to escape (member names, enum values, timestamps)
        // is appended whole instead of scalar by scalar.
        if value.utf8.allSatisfy({
            $0 >= 0x20 && $0 != 0x7F && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\")
        }) {
            output += "\""
            output += value
            output += "\""
            return
        }
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case let c where c.value < 0x20 || c.value == 0x7F:
                let hex = String(c.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

extension JSONValue: Codable {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
    public init(nilLiteral: ()) { self = .null }
}
