import PetSpotLocation

/// Reads one TOML table, recording every problem and which keys were used.
package struct TableReader {
    /// The table's key path (`""` for the root).
    package let path: String
    package let entries: [String: TOMLNode]
    private var used: Set<String> = []

    package init(path: String, entries: [String: TOMLNode]) {
        self.path = path
        self.entries = entries
    }

    /// The full key path of `key` in this table.
    package func keyPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    /// Whether the table gives `key`.
    package func has(_ key: String) -> Bool { entries[key] != nil }

    /// The raw value of `key`, marking it known.
    package mutating func value(_ key: String) -> TOMLNode? {
        used.insert(key)
        return entries[key]
    }

    /// Records an error about `key`.
    package func fail(_ key: String, _ message: String, into errors: inout [ConfigurationError]) {
        errors.append(ConfigurationError(key: keyPath(key), message: message))
    }

    private func wrongType(_ key: String, expected: String, found: TOMLNode, into errors: inout [ConfigurationError]) {
        fail(key, "expected \(expected), found \(found.typeDescription)", into: &errors)
    }

    /// A string value; `nil` when absent or wrong.
    package mutating func string(_ key: String, errors: inout [ConfigurationError]) -> String? {
        guard let node = value(key) else { return nil }
        guard case .string(let text) = node else {
            wrongType(key, expected: "a string", found: node, into: &errors)
            return nil
        }
        return text
    }

    /// A non-empty string value.
    package mutating func nonEmptyString(_ key: String, errors: inout [ConfigurationError]) -> String? {
        guard let text = string(key, errors: &errors) else { return nil }
        guard !text.isEmpty else {
            fail(key, "must not be empty", into: &errors)
            return nil
        }
        return text
    }

    /// A Unix socket path: a non-empty string, a relative one taken from
    /// `baseDirectory` (the file's), that fits `sun_path`
    /// (``ConfigurationLoader/maximumSocketPathLength`` bytes).
    package mutating func socketPath(
        _ key: String, relativeTo baseDirectory: String?, errors: inout [ConfigurationError]
    ) -> String? {
        guard let text = nonEmptyString(key, errors: &errors) else { return nil }
        let resolved = ConfigurationLoader.resolve(text, against: baseDirectory)
        let limit = ConfigurationLoader.maximumSocketPathLength
        guard resolved.utf8.count <= limit else {
            fail(
                key, "path is \(resolved.utf8.count) bytes long; a Unix socket path is at most \(limit)", into: &errors)
            return nil
        }
        return resolved
    }

    /// A permission mode: `"660"`, `"0660"`, `"1770"` (three or four octal digits, at most `07777`).
    package mutating func permissionMode(_ key: String, errors: inout [ConfigurationError]) -> UInt32? {
        guard let text = string(key, errors: &errors) else { return nil }
        guard (3...4).contains(text.count), text.allSatisfy({ ("0"..."7").contains($0) }),
            let mode = UInt32(text, radix: 8)
        else {
            fail(key, "must be an octal permission mode such as \"0660\", found \"\(text)\"", into: &errors)
            return nil
        }
        return mode
    }

    /// An integer value (floats are refused).
    package mutating func integer(_ key: String, errors: inout [ConfigurationError]) -> Int? {
        guard let node = value(key) else { return nil }
        guard case .integer(let number) = node else {
            wrongType(key, expected: "an integer", found: node, into: &errors)
            return nil
        }
        return number
    }

    /// An integer in `range`.
    package mutating func integer(_ key: String, in range: ClosedRange<Int>, errors: inout [ConfigurationError]) -> Int?
    {
        guard let number = integer(key, errors: &errors) else { return nil }
        guard range.contains(number) else {
            fail(key, "must be in \(range.lowerBound)...\(range.upperBound), found \(number)", into: &errors)
            return nil
        }
        return number
    }

    /// A number (integers are accepted where floats are expected).
    package mutating func number(_ key: String, errors: inout [ConfigurationError]) -> Double? {
        guard let node = value(key) else { return nil }
        switch node {
        case .float(let number): return number
        case .integer(let number): return Double(number)
        default:
            wrongType(key, expected: "a number", found: node, into: &errors)
            return nil
        }
    }

    /// A finite number satisfying `isAcceptable`, else an error saying `requirement`.
    package mutating func number(
        _ key: String, requirement: String, errors: inout [ConfigurationError], _ isAcceptable: (Double) -> Bool
    ) -> Double? {
        guard let number = number(key, errors: &errors) else { return nil }
        guard number.isFinite, isAcceptable(number) else {
            fail(key, "must be \(requirement), found \(number)", into: &errors)
            return nil
        }
        return number
    }

    /// A duration in seconds (integer or float) in (0, `maximum`].
    package mutating func duration(_ key: String, maximum: Double, errors: inout [ConfigurationError]) -> Duration? {
        let seconds = number(
            key, requirement: "a number of seconds greater than 0 and at most \(Int(maximum))", errors: &errors
        ) { $0 > 0 && $0 <= maximum }
        return seconds.map(Duration.fromSeconds)
    }

    /// One of an enumeration's raw values.
    package mutating func choice<T: RawRepresentable & CaseIterable>(
        _ key: String, of type: T.Type, errors: inout [ConfigurationError]
    ) -> T? where T.RawValue == String {
        guard let text = string(key, errors: &errors) else { return nil }
        guard let value = T(rawValue: text) else {
            let allowed = T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
            fail(key, "must be one of \(allowed), found \"\(text)\"", into: &errors)
            return nil
        }
        return value
    }

    /// An array of strings.
    package mutating func strings(_ key: String, errors: inout [ConfigurationError]) -> [String]? {
        guard let node = value(key) else { return nil }
        guard case .array(let items) = node else {
            wrongType(key, expected: "an array of strings", found: node, into: &errors)
            return nil
        }
        var result: [String] = []
        var valid = true
        for (index, item) in items.enumerated() {
            if case .string(let text) = item {
                result.append(text)
            } else {
                errors.append(
                    ConfigurationError(
                        key: "\(keyPath(key))[\(index)]", message: "expected a string, found \(item.typeDescription)"))
                valid = false
            }
        }
        return valid ? result : nil
    }

    /// A sub-table; `nil` when absent or not a table.
    package mutating func table(_ key: String, errors: inout [ConfigurationError]) -> TableReader? {
        guard let node = value(key) else { return nil }
        guard case .table(let entries) = node else {
            wrongType(key, expected: "a table", found: node, into: &errors)
            return nil
        }
        return TableReader(path: keyPath(key), entries: entries)
    }

    /// An array of tables (`[[key]]`); `nil` when absent or wrong.
    package mutating func tables(_ key: String, errors: inout [ConfigurationError]) -> [TableReader]? {
        guard let node = value(key) else { return nil }
        guard case .array(let items) = node else {
            wrongType(key, expected: "an array of tables", found: node, into: &errors)
            return nil
        }
        var result: [TableReader] = []
        for (index, item) in items.enumerated() {
            let itemPath = "\(keyPath(key))[\(index)]"
            if case .table(let entries) = item {
                result.append(TableReader(path: itemPath, entries: entries))
            } else {
                errors.append(
                    ConfigurationError(key: itemPath, message: "expected a table, found \(item.typeDescription)"))
            }
        }
        return result
    }

    /// Records every key of this table that was never asked for, in sorted order.
    package func reportUnknownKeys(errors: inout [ConfigurationError]) {
        for key in entries.keys.sorted() where !used.contains(key) {
            fail(key, "unknown key", into: &errors)
        }
    }
}
