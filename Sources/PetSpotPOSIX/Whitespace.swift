extension StringProtocol {
    /// Without the spaces and tabs at either end (Foundation's
    /// `trimmingCharacters(in: .whitespaces)`: Unicode's space separators and tab).
    public func trimmingWhitespace() -> String {
        trimming { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator }
    }

    /// Without white space and line ends at either end (Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)`).
    public func trimmingWhitespaceAndNewlines() -> String {
        trimming { $0.properties.isWhitespace || $0 == "\u{85}" }
    }

    private func trimming(_ isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isTrimmed($0) })!
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars[first...last])
        return text
    }
}
