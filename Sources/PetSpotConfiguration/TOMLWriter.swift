import PetSpotJSON
import PetSpotLocation

/// Writes TOML text line by line: the one renderer of both programs'
/// effective configurations (`petspot-locationd --check-config`,
/// `petspot-kiosk --check-config`), with the one string quoter, so that
/// whatever a string holds (quotes, backslashes, newlines, control
/// characters) it reads back as itself.
public struct TOMLWriter: Sendable {
    /// The text so far.
    public private(set) var text = ""

    public init() {}

    /// Starts `[name]`.
    public mutating func section(_ name: String) {
        if !text.isEmpty { text += "\n" }
        text += "[\(name)]\n"
    }

    /// Starts `[[name]]`.
    public mutating func arrayTable(_ name: String) {
        if !text.isEmpty { text += "\n" }
        text += "[[\(name)]]\n"
    }

    /// `key = value`, the value written as given (a number, an array, a quoted string).
    public mutating func key(_ key: String, raw value: String) { text += "\(key) = \(value)\n" }

    /// `key = "value"`, quoted by ``quote(_:)``.
    public mutating func key(_ key: String, string value: String) { self.key(key, raw: TOMLWriter.quote(value)) }

    /// `key = value`, or a comment saying the key is not set.
    public mutating func optional(_ key: String, _ value: String?) {
        if let value { self.key(key, raw: value) } else { comment("\(key) is not set") }
    }

    /// `# line`.
    public mutating func comment(_ line: String) { text += "# \(line)\n" }

    /// A TOML basic string: JSON's string literal (``JSONValue/writeString(_:into:)``,
    /// which escapes quotes, backslashes and every control character), which
    /// TOML reads back as the same string. One escaper for both formats.
    public static func quote(_ value: String) -> String {
        var result = ""
        JSONValue.writeString(value, into: &result)
        return result
    }

    /// An array of quoted strings.
    public static func strings(_ values: [String]) -> String { "[" + values.map(quote).joined(separator: ", ") + "]" }

    /// A finite double in a form TOML reads back to the same bits.
    public static func number(_ value: Double) -> String {
        let text = "\(value)"
        return text.contains(".") || text.contains("e") ? text : text + ".0"
    }

    /// Whole seconds as an integer, else a float.
    public static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return attoseconds == 0 ? String(seconds) : number(duration.seconds)
    }
}
