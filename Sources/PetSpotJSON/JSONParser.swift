/// A strict RFC 8259 parser into ``JSONValue``, working directly on UTF-8 bytes.
///
/// It replaces Foundation's `JSONDecoder` on the daemon's request path
/// (one parse per request line): no `Data` copy, no `Codable` machinery,
/// no thrown-and-caught type probes. It is exactly as strict as the
/// grammar: no comments, trailing commas, leading zeros, bare `NaN` or
/// `Infinity`, unescaped control characters, invalid escapes, lone
/// surrogates or invalid UTF-8; numbers that overflow a `Double` are
/// rejected. Duplicate member names are rejected too: RFC 8259 leaves
/// their meaning open (Foundation kept one of them), and a request such as
/// `{"method":"a","method":"b"}` must not mean one thing here and another
/// to a proxy or an audit reader. Nesting is
/// limited to ``maximumDepth`` so a hostile line cannot exhaust the stack.
struct JSONParser {
    /// Deepest nesting of arrays and objects accepted.
    static let maximumDepth = 512

    /// Why a document was rejected, with the byte offset.
    struct Failure: Error, CustomStringConvertible {
        var offset: Int
        var reason: String
        var description: String { "\(reason) at byte \(offset)" }
    }

    private let bytes: UnsafeRawBufferPointer
    private var index = 0
    private var depth = 0

    private init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    /// Parses one complete document (surrounding whitespace allowed).
    static func parse(_ bytes: UnsafeRawBufferPointer) throws(Failure) -> JSONValue {
        var parser = JSONParser(bytes)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.failure("unexpected data after the document") }
        return value
    }

    private func failure(_ reason: String) -> Failure { Failure(offset: index, reason: reason) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private mutating func parseValue() throws(Failure) -> JSONValue {
        guard let byte = current else { throw failure("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return .bool(true)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return .bool(false)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw failure("unexpected character")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(Failure) {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else { throw failure("invalid literal") }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            throw failure("invalid literal")
        }
        index += count
    }

    private mutating func enter() throws(Failure) {
        depth += 1
        guard depth <= JSONParser.maximumDepth else { throw failure("nesting deeper than \(JSONParser.maximumDepth)") }
    }

    private mutating func parseObject() throws(Failure) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        var members: [String: JSONValue] = [:]
        if opensEmpty(closedBy: UInt8(ascii: "}")) { return .object(members) }
        repeat {
            guard current == UInt8(ascii: "\"") else { throw failure("expected a member name") }
            let key = try parseString()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw failure("expected ':'") }
            index += 1
            skipWhitespace()
            let value = try parseValue()
            guard members.updateValue(value, forKey: key) == nil else {
                throw failure("duplicate member name \"\(key)\"")
            }
        } while try !closesAfterElement(closedBy: UInt8(ascii: "}"))
        return .object(members)
    }

    private mutating func parseArray() throws(Failure) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        var elements: [JSONValue] = []
        if opensEmpty(closedBy: UInt8(ascii: "]")) { return .array(elements) }
        repeat {
            elements.append(try parseValue())
        } while try !closesAfterElement(closedBy: UInt8(ascii: "]"))
        return .array(elements)
    }

    /// Steps over a container's opening byte and the whitespace after it.
    /// - Returns: `true`, with `close` consumed too, when the container is empty.
    private mutating func opensEmpty(closedBy close: UInt8) -> Bool {
        index += 1  // { or [
        skipWhitespace()
        guard current == close else { return false }
        index += 1
        return true
    }

    /// Reads what follows a member or element: `,` and whitespace (another
    /// follows) or `close` (the container ends).
    /// - Returns: `true` when the container ended.
    private mutating func closesAfterElement(closedBy close: UInt8) throws(Failure) -> Bool {
        skipWhitespace()
        if current == UInt8(ascii: ",") {
            index += 1
            skipWhitespace()
            return false
        }
        guard current == close else { throw failure("expected ',' or '\(Character(Unicode.Scalar(close)))'") }
        index += 1
        return true
    }

    private mutating func parseString() throws(Failure) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes; the bytes are validated as UTF-8 by
        // String(validating:), unless all are ASCII (member names and most
        // values), which is valid UTF-8 as it is and costs a fraction to copy.
        var isASCII = true
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let raw = UnsafeRawBufferPointer(rebasing: bytes[start..<index])
                index += 1
                if isASCII { return String(decoding: raw, as: UTF8.self) }
                guard let text = String(validating: raw, as: UTF8.self) else {
                    throw Failure(offset: start, reason: "invalid UTF-8 in a string")
                }
                return text
            }
            if byte == UInt8(ascii: "\\") { break }
            guard byte >= 0x20 else { throw failure("unescaped control character in a string") }
            isASCII = isASCII && byte < 0x80
            index += 1
        }
        guard index < bytes.count else { throw failure("unterminated string") }
        // Slow path: decode escapes into a byte buffer.
        var decoded = Array(UnsafeRawBufferPointer(rebasing: bytes[start..<index]))
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: decoded, as: UTF8.self) else {
                    throw Failure(offset: start, reason: "invalid UTF-8 in a string")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                guard let escape = current else { throw failure("unterminated escape") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
                case UInt8(ascii: "b"): decoded.append(0x08)
                case UInt8(ascii: "f"): decoded.append(0x0C)
                case UInt8(ascii: "n"): decoded.append(0x0A)
                case UInt8(ascii: "r"): decoded.append(0x0D)
                case UInt8(ascii: "t"): decoded.append(0x09)
                case UInt8(ascii: "u"):
                    var scalar = try parseHex4()
                    if (0xD800...0xDBFF).contains(scalar) {
                        guard bytes.count - index >= 6, bytes[index] == UInt8(ascii: "\\"),
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw failure("lone surrogate in a \\u escape") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw failure("lone surrogate in a \\u escape") }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(scalar) {
                        throw failure("lone surrogate in a \\u escape")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else { throw failure("invalid \\u escape") }
                    decoded.append(contentsOf: UTF8.encode(unicode)!)
                default: throw failure("invalid escape")
                }
            default:
                guard byte >= 0x20 else { throw failure("unescaped control character in a string") }
                decoded.append(byte)
                index += 1
            }
        }
        throw failure("unterminated string")
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        guard bytes.count - index >= 4 else { throw failure("invalid \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    private mutating func parseNumber() throws(Failure) -> Double {
        let start = index
        switch JSONNumber.read(bytes, at: &index) {
        case .success(let value): return value
        case .failure(.invalid): throw failure("invalid number")
        case .failure(.leadingZero): throw failure("leading zero in a number")
        case .failure(.outOfRange): throw Failure(offset: start, reason: "number out of range")
        }
    }
}

/// The JSON number grammar and its conversion to `Double`, in one place for
/// ``JSONValue/parse(bytes:)`` and for readers that scan a known line
/// without building a ``JSONValue`` (the daemon's `LocationGetLine`): both
/// read the same text as the same number.
public enum JSONNumber {
    /// Why a number was rejected.
    public enum Failure: Error, Sendable {
        /// Not a number by RFC 8259's grammar.
        case invalid
        /// `0` followed by a digit.
        case leadingZero
        /// Too large for a finite `Double`.
        case outOfRange
    }

    /// 10⁰ … 10²², each exact in a `Double` (the reader's and the writer's).
    static let powersOfTen: [Double] = (0...22).map { exponent in
        (0..<exponent).reduce(1.0) { value, _ in value * 10 }
    }

    /// Reads the number that starts at `index` in `bytes` and moves `index`
    /// past it (on failure, to where the grammar broke).
    public static func read(_ bytes: UnsafeRawBufferPointer, at index: inout Int) -> Result<Double, Failure> {
        func current() -> UInt8? { index < bytes.count ? bytes[index] : nil }
        func isDigit(_ byte: UInt8?) -> Bool {
            guard let byte else { return false }
            return byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
        }
        let start = index
        var negative = false
        if current() == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard isDigit(current()) else { return .failure(.invalid) }
        // The significant digits (at most 19 kept) and the power of ten they are scaled by.
        var mantissa: UInt64 = 0
        var significant = 0
        var scale = 0
        var dropped = false
        func take(_ byte: UInt8, fraction: Bool) {
            let digit = UInt64(byte - UInt8(ascii: "0"))
            if significant == 0, digit == 0 {
                if fraction { scale -= 1 }
            } else if significant < 19 {
                mantissa = mantissa * 10 + digit
                significant += 1
                if fraction { scale -= 1 }
            } else {
                dropped = dropped || digit != 0
                if !fraction { scale += 1 }
            }
        }
        if current() == UInt8(ascii: "0") {
            index += 1
            if isDigit(current()) { return .failure(.leadingZero) }
        } else {
            while let byte = current(), isDigit(byte) {
                take(byte, fraction: false)
                index += 1
            }
        }
        if current() == UInt8(ascii: ".") {
            index += 1
            guard isDigit(current()) else { return .failure(.invalid) }
            while let byte = current(), isDigit(byte) {
                take(byte, fraction: true)
                index += 1
            }
        }
        if current() == UInt8(ascii: "e") || current() == UInt8(ascii: "E") {
            index += 1
            var exponentSign = 1
            if current() == UInt8(ascii: "+") || current() == UInt8(ascii: "-") {
                if current() == UInt8(ascii: "-") { exponentSign = -1 }
                index += 1
            }
            guard isDigit(current()) else { return .failure(.invalid) }
            var exponent = 0
            while let byte = current(), isDigit(byte) {
                exponent = min(exponent * 10 + Int(byte - UInt8(ascii: "0")), 100_000)
                index += 1
            }
            scale += exponentSign * exponent
        }
        // Clinger's fast path: at most 15 significant digits and a power of ten up to 22 are both
        // exact in a Double, so one multiplication or division is the correctly rounded value, as
        // `Double(text)` (strtod) gives it. Zero is zero whatever its exponent.
        if mantissa == 0 { return .success(negative ? -0.0 : 0.0) }
        if !dropped, significant <= 15, abs(scale) <= 22 {
            let magnitude = Double(mantissa)
            let value = scale >= 0 ? magnitude * powersOfTen[scale] : magnitude / powersOfTen[-scale]
            return .success(negative ? -value : value)
        }
        let text = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else { return .failure(.outOfRange) }
        return .success(value)
    }
}
