/// The line each key of a TOML document is written on, so that an error
/// about a key can say where it is (`line 12: delivery.endpont: unknown key`).
///
/// TOMLKit reports positions for syntax errors only; this is a light scan of
/// the text that knows table headers (`[a.b]`, `[[a.b]]`, counted as
/// `a.b[0]`, `a.b[1]`, …), `key = value` lines with bare, quoted and dotted
/// keys, comments and multi-line strings. Keys inside inline tables have no
/// line of their own: their table's line is used.
package struct TOMLKeyLines: Sendable {
    private var lines: [String: Int] = [:]

    /// Scans `text` (already known to parse).
    package init(_ text: String) {
        var table: [String] = []
        var arrayCounts: [String: Int] = [:]
        var multiline: Substring?  // the closing delimiter of an open multi-line string
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            var line = Substring(rawLine)
            if let delimiter = multiline {
                guard let range = line.firstRange(of: delimiter) else { continue }
                line = line[range.upperBound...]
                multiline = nil
                if let opened = Self.openMultiline(line) { multiline = opened }
                continue
            }
            let trimmed = line.drop { $0 == " " || $0 == "\t" }
            if trimmed.hasPrefix("[[") {
                let path = Self.keyPath(Self.header(trimmed.dropFirst(2), closing: "]]"))
                let joined = path.joined(separator: ".")
                let count = arrayCounts[joined, default: 0]
                arrayCounts[joined] = count + 1
                table = path.dropLast() + ["\(path.last ?? "")[\(count)]"]
                record(table, number)
                record(path, number)
            } else if trimmed.hasPrefix("[") {
                table = Self.keyPath(Self.header(trimmed.dropFirst(), closing: "]"))
                record(table, number)
            } else if let equals = Self.assignment(trimmed) {
                let key = Self.keyPath(trimmed[..<equals])
                guard !key.isEmpty else { continue }
                record(table + key, number)
                if let opened = Self.openMultiline(trimmed[trimmed.index(after: equals)...]) { multiline = opened }
            }
        }
    }

    /// The line of `keyPath` (as ``ConfigurationError/key`` writes it), or of
    /// the nearest enclosing table that is written in the file.
    package func line(of keyPath: String) -> Int? {
        var path = keyPath
        while true {
            if let line = lines[path] { return line }
            guard let dot = path.lastIndex(of: ".") else { return nil }
            path = String(path[..<dot])
        }
    }

    /// `errors` with the line of each key filled in where it was not known.
    package func locate(_ errors: [ConfigurationError]) -> [ConfigurationError] {
        errors.map { error in
            var error = error
            if error.line == nil, let key = error.key { error.line = line(of: key) }
            return error
        }
    }

    private mutating func record(_ path: [String], _ line: Int) {
        let joined = path.joined(separator: ".")
        if lines[joined] == nil { lines[joined] = line }
    }

    /// The text of a header up to its closing bracket.
    private static func header(_ text: Substring, closing: String) -> Substring {
        guard let end = text.firstRange(of: closing) else { return text }
        return text[..<end.lowerBound]
    }

    /// The index of the `=` of a `key = value` line, if the line is one.
    private static func assignment(_ line: Substring) -> Substring.Index? {
        guard let first = line.first, first != "#", first != "{", first != "]" else { return nil }
        var quote: Character?
        for index in line.indices {
            let character = line[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "=" {
                return index
            } else if !(character.isLetter || character.isNumber || "_-. \t".contains(character)) {
                return nil
            }
        }
        return nil
    }

    /// Splits a dotted key (`a."b.c".d`) into its parts, quotes removed.
    private static func keyPath(_ text: Substring) -> [String] {
        var parts: [String] = []
        var current = ""
        var quote: Character?
        for character in text {
            if let open = quote {
                if character == open { quote = nil } else { current.append(character) }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "." {
                parts.append(current)
                current = ""
            } else if character != " " && character != "\t" {
                current.append(character)
            }
        }
        parts.append(current)
        return parts.filter { !$0.isEmpty }
    }

    /// The closing delimiter when `value` opens a multi-line string it does not close.
    private static func openMultiline(_ value: Substring) -> Substring? {
        for delimiter in ["\"\"\"", "'''"] {
            guard let open = value.firstRange(of: delimiter) else { continue }
            // A comment before the delimiter means it is not a string.
            if value[..<open.lowerBound].contains("#") { return nil }
            if value[open.upperBound...].firstRange(of: delimiter) == nil { return Substring(delimiter) }
            return nil
        }
        return nil
    }
}
