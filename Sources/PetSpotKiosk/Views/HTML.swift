/// A piece of HTML, written as a string literal whose interpolations are
/// escaped by default: `"<p>\(name)</p>" as HTML` escapes `name`; only an
/// interpolated ``HTML`` value (a piece built the same way) goes in as it is.
/// ``escape(_:)`` is the one escaper of every page.
public struct HTML: Sendable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The markup.
    public private(set) var text: String

    public init(stringLiteral value: String) {
        text = value
    }

    public init(stringInterpolation: StringInterpolation) {
        text = stringInterpolation.text
    }

    public var description: String { text }

    /// `<`, `>`, `&`, `"` and `'` as character references (text and attribute values alike).
    public static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text {
            switch character {
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "&": escaped += "&amp;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    public struct StringInterpolation: StringInterpolationProtocol {
        var text = ""

        public init(literalCapacity: Int, interpolationCount: Int) {
            text.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        /// The literal's own markup.
        public mutating func appendLiteral(_ literal: String) {
            text += literal
        }

        /// Text, escaped.
        public mutating func appendInterpolation(_ value: String) {
            text += HTML.escape(value)
        }

        public mutating func appendInterpolation(_ value: Int) {
            text += String(value)
        }

        /// `true` or `false` (`aria-pressed`, `aria-invalid`).
        public mutating func appendInterpolation(_ value: Bool) {
            text += value ? "true" : "false"
        }

        /// Markup built as HTML, as it is.
        public mutating func appendInterpolation(_ html: HTML) {
            text += html.text
        }

        /// `html` when `condition` holds, else nothing.
        public mutating func appendInterpolation(if condition: Bool, _ html: HTML) {
            if condition { text += html.text }
        }
    }
}

extension Optional {
    /// The markup for the value, or nothing for `nil`.
    func html(_ body: (Wrapped) -> HTML) -> HTML {
        map(body) ?? ""
    }
}

extension Sequence {
    /// The markup for each element, one after another.
    func html(_ body: (Element) -> HTML) -> HTML {
        var all = HTML.StringInterpolation(literalCapacity: 0, interpolationCount: 0)
        for element in self { all.appendInterpolation(body(element)) }
        return HTML(stringInterpolation: all)
    }
}
