extension TOMLNode {
    /// A place in TOML text that toml++ must not be given, with the syntax
    /// error to report instead.
    struct UnparsableInput: Equatable, Sendable {
        /// 1-based line.
        var line: Int
        /// 1-based column in Unicode scalars, as toml++ counts them (a leading
        /// byte order mark is not counted).
        var column: Int
        /// What is wrong, for "TOML syntax error: …".
        var reason: String
    }

    /// The first place in `text` that toml++ 3.4 (under TOMLKit 0.6) would
    /// *assert* on instead of reporting a syntax error, which aborts the
    /// process (its asserts are live in our builds; found by Fuzz/fuzz-config).
    ///
    /// Every shape below is invalid TOML, so no valid document is refused:
    /// - a table header whose name starts with a character that is neither a
    ///   bare-key character nor a quote (`[é]`, `[#]`, `[[=]]`, `[[[x]]`, `[`);
    /// - an array element that starts with `}` or with U+0085, U+2028 or
    ///   U+2029 (`[}]`, `[1, }`): toml++'s `parse_array` hands those to
    ///   `parse_value`, which asserts `!is_value_terminator(*cp)`;
    /// - a value that is a date, one space, one digit and no second digit
    ///   (`2020-01-01 1`): toml++ looks for a time and asserts on the
    ///   terminator after the digit;
    /// - a date with underscores (`2020-01-01__…__ 07:00`, `1978-05-27__…__ )`):
    ///   with 115 or more underscores before a space toml++'s look-ahead for a
    ///   time outruns its 127-character history and `step_back` asserts,
    ///   whatever follows the space;
    /// - a value that is a date and `T` not followed by a digit
    ///   (`2020-01-01T:00`): toml++'s `parse_time` asserts on a digit;
    /// - a NUL (U+0000), which TOML never allows: TOMLKit hands toml++ a C
    ///   string, so toml++ would silently ignore the rest of the file.
    /// - an escaped NUL in a basic string (`"a\u0000b"`): valid TOML, but
    ///   TOMLKit reads toml++'s strings as C strings and would cut the value
    ///   there without a word (refused, so no setting is read short).
    ///
    /// A small scanner follows TOML's strings (with toml++'s closing-quote
    /// rule), comments and the nesting of arrays and inline tables in values,
    /// so it can tell array elements from keys and headers.
    static func unparsableInput(in text: String) -> UnparsableInput? {
        var scalars = Array(text.unicodeScalars)
        // toml++ skips a UTF-8 byte order mark at the start of the document.
        if scalars.first == "\u{FEFF}" { scalars.removeFirst() }
        let end = scalars.firstIndex(of: "\0") ?? scalars.count
        var scanner = AssertingShapeScanner(scalars: Array(scalars[..<end]))
        if let (index, reason) = scanner.firstShape() {
            return UnparsableInput(at: index, in: scalars, reason: reason)
        }
        if end < scalars.count {
            return UnparsableInput(at: end, in: scalars, reason: "TOML does not allow a NUL character (U+0000)")
        }
        return nil
    }
}

extension TOMLNode.UnparsableInput {
    fileprivate init(at index: Int, in scalars: [Unicode.Scalar], reason: String) {
        var line = 1
        var lineStart = 0
        for position in 0..<index where scalars[position] == "\n" {
            line += 1
            lineStart = position + 1
        }
        self.init(line: line, column: index - lineStart + 1, reason: reason)
    }
}

/// Walks TOML text as toml++ would, far enough to find the shapes listed in
/// ``TOMLNode/unparsableInput(in:)``. After a syntax error toml++ would have
/// reported anyway it may go on: it only ever reports invalid TOML.
private struct AssertingShapeScanner {
    let scalars: [Unicode.Scalar]
    var index = 0
    /// The arrays (`[`) and inline tables (`{`) open in the current value.
    var nesting: [Unicode.Scalar] = []
    /// Whether the next non-blank character starts a value (after `=`, or an array's `[` or `,`).
    var expectingValue = false
    var atLineStart = true

    var inArray: Bool { nesting.last == "[" }

    mutating func firstShape() -> (index: Int, reason: String)? {
        while index < scalars.count {
            if atLineStart {
                atLineStart = false
                // Outside values, a line's `[` opens a table header.
                if nesting.isEmpty, let shape = headerShape() { return shape }
            }
            let scalar = scalars[index]
            switch scalar {
            case "\n":
                atLineStart = true
                // Only arrays continue over lines (toml++ reports `a =` + newline itself).
                if !inArray { expectingValue = false }
                index += 1
            case " ", "\t", "\r":
                index += 1
            case "#":
                while index < scalars.count && scalars[index] != "\n" { index += 1 }
            case "\"", "'":
                if let shape = skipString() { return shape }
                expectingValue = false
            case "=":
                // A key's `=`; none belongs directly in an array.
                if !inArray { expectingValue = true }
                index += 1
            case ",":
                expectingValue = inArray
                index += 1
            case "[":
                if expectingValue { nesting.append("[") }  // else a header's bracket
                index += 1
            case "{":
                if expectingValue { nesting.append("{") }
                expectingValue = false
                index += 1
            case "]":
                if inArray { nesting.removeLast() }
                expectingValue = false
                index += 1
            case "}", "\u{85}", "\u{2028}", "\u{2029}":
                if expectingValue && inArray {
                    let saw = scalar == "}" ? "'}'" : "U+\(String(scalar.value, radix: 16, uppercase: true))"
                    return (index, "expected a value or ']' in the array, saw \(saw)")
                }
                if scalar == "}" && nesting.last == "{" { nesting.removeLast() }
                expectingValue = false
                index += 1
            default:
                if expectingValue {
                    if let shape = dateTimeShape() { return shape }
                    // toml++ reads a value up to a terminator before telling its type.
                    while index < scalars.count && !Self.isValueTerminator(scalars[index]) { index += 1 }
                    expectingValue = false
                } else {
                    index += 1
                }
            }
        }
        return nil
    }

    /// A table header at the line starting at `index` whose name cannot start
    /// a key: toml++ 3's `parse_key` asserts on it.
    func headerShape() -> (index: Int, reason: String)? {
        var position = index
        func skipBlanks() {
            while position < scalars.count && (scalars[position] == " " || scalars[position] == "\t") { position += 1 }
        }
        skipBlanks()
        guard position < scalars.count && scalars[position] == "[" else { return nil }
        position += 1
        if position < scalars.count && scalars[position] == "[" { position += 1 }
        skipBlanks()
        if position < scalars.count && Self.mayStartKey(scalars[position]) { return nil }
        return (position, "a table name must start with a letter, digit, '_', '-' or a quote")
    }

    /// A value at `index` that toml++ takes for a date-time without a time.
    func dateTimeShape() -> (index: Int, reason: String)? {
        guard Self.isDigit(scalars[index]) else { return nil }
        var end = index
        while end < scalars.count && !Self.isValueTerminator(scalars[end]) { end += 1 }
        let token = scalars[index..<end]
        // "YYYY-MM-DDT" + not a digit: toml++'s parse_time asserts on a digit.
        if token.count >= 11,
            zip(token.prefix(10), "dddd-dd-dd".unicodeScalars).allSatisfy({ $1 == "d" ? Self.isDigit($0) : $0 == $1 }),
            token[index + 10] == "T" || token[index + 10] == "t",
            index + 11 < scalars.count, !Self.isDigit(scalars[index + 11])
        {
            return (index + 11, "expected a time (HH:MM:SS) after the 'T' of a date-time")
        }
        // Ten characters (underscores aside) like "YYYY-MM-DD": toml++ counts the underscores
        // in its look-ahead but not in the date, so a date made 127 characters long by them
        // ends its scan on the space after it; it then reads one more character for a time,
        // whatever that is, and going back outruns its 127-character history (`step_back`
        // asserts). A date is never written with underscores, so any is refused.
        let characters = token.filter { $0 != "_" }
        let start = characters.startIndex
        guard characters.count == 10, characters[start + 4] == "-", characters[start + 7] == "-" else { return nil }
        if let underscore = token.firstIndex(of: "_") {
            return (underscore, "a date cannot contain '_'")
        }
        // A date, a space and a digit: toml++ reads on for a time, and asserts on a
        // terminator right after the digit.
        guard end + 2 < scalars.count, scalars[end] == " ", Self.isDigit(scalars[end + 1]) else { return nil }
        if !Self.isDigit(scalars[end + 2]) {
            return (end + 1, "expected a two-digit hour (HH:MM:SS) after a date and a space")
        }
        return nil
    }

    /// Skips the string starting at `index` as toml++ reads it; a single-line
    /// string stops before the end of its line (toml++ reports it unterminated).
    /// - Returns: an escaped NUL (`\u0000`, `\U00000000`) in a basic string:
    ///   TOML allows it, but TOMLKit reads toml++'s strings as C strings, so
    ///   the value would be cut there without a word.
    mutating func skipString() -> (index: Int, reason: String)? {
        let quote = scalars[index]
        let multiline = run(of: quote, at: index) >= 3
        index += multiline ? 3 : 1
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\n" && !multiline { return nil }
            if scalar == "\\" && quote == "\"" {
                if escapesNUL(at: index + 1) {
                    return (index, "a string cannot hold a NUL character (\\u0000)")
                }
                index += 1
                if index < scalars.count && scalars[index] != "\n" { index += 1 }
            } else if scalar == quote {
                // toml++ ends a multi-line string on 3 quotes and takes up to 2 more as content.
                let quotes = multiline ? run(of: quote, at: index) : 1
                if quotes >= (multiline ? 3 : 1) {
                    index += min(quotes, 5)
                    return nil
                }
                index += quotes
            } else {
                index += 1
            }
        }
        return nil
    }

    /// Whether the escape after a backslash, at `start`, is `u0000` or `U00000000`.
    func escapesNUL(at start: Int) -> Bool {
        guard start < scalars.count else { return false }
        let digits = scalars[start] == "u" ? 4 : scalars[start] == "U" ? 8 : 0
        guard digits > 0, start + digits < scalars.count else { return false }
        return scalars[(start + 1)...(start + digits)].allSatisfy { $0 == "0" }
    }

    func run(of scalar: Unicode.Scalar, at start: Int) -> Int {
        var end = start
        while end < scalars.count && scalars[end] == scalar { end += 1 }
        return end - start
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }

    /// A bare-key character or a quote: what toml++ accepts as a key's first character.
    static func mayStartKey(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-", "\"", "'": true
        default: false
        }
    }

    /// toml++'s `is_value_terminator`: whitespace (its Unicode list), `]`, `}`, `,` or `#`.
    static func isValueTerminator(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A...0x0D, 0x20, 0x5D, 0x7D, 0x2C, 0x23: true
        case 0x85, 0xA0, 0x1680, 0x180E, 0x2000...0x200B, 0x2028, 0x2029, 0x202F, 0x205F, 0x2060, 0x3000, 0xFEFF: true
        default: false
        }
    }
}
