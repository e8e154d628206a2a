/// One problem found in a configuration file.
///
/// Printed (``description``) as `KEY: MESSAGE` for a problem with a key
/// (`source.gpsd.port: must be in 1...65535, found 70000`), as
/// `line L, column C: MESSAGE` for a TOML syntax error, or as `MESSAGE`
/// for a problem with the file itself.
public struct ConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The full dotted key path (`policy.rules[2].uid`; array indexes count
    /// from 0), or `nil` for syntax and file errors.
    public var key: String?
    /// What is wrong, in words.
    public var message: String
    /// The 1-based line of a TOML syntax error.
    public var line: Int?
    /// The 1-based column of a TOML syntax error.
    public var column: Int?

    /// Creates an error.
    public init(key: String? = nil, message: String, line: Int? = nil, column: Int? = nil) {
        self.key = key
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String {
        var prefix = ""
        if let line {
            prefix = "line \(line)"
            if let column { prefix += ", column \(column)" }
            prefix += ": "
        }
        if let key { prefix += "\(key): " }
        return prefix + message
    }
}

/// Every problem found in a configuration file (never empty when thrown).
///
/// ``description`` prints one error per line, each prefixed with the file
/// path when known (`/etc/petspot/locationd.toml: source.gpsd.port: …`), in
/// the order the file's sections are read.
public struct ConfigurationErrors: Error, Sendable, Hashable, CustomStringConvertible {
    /// The errors.
    public var errors: [ConfigurationError]
    /// The file they were found in, when loaded from a file.
    public var file: String?

    /// Creates a list.
    public init(_ errors: [ConfigurationError], file: String? = nil) {
        self.errors = errors
        self.file = file
    }

    /// The key paths named by the errors, in order (syntax and file errors omitted).
    public var keys: [String] { errors.compactMap(\.key) }

    public var description: String {
        errors.map { error in file.map { "\($0): \(error)" } ?? error.description }.joined(separator: "\n")
    }
}
