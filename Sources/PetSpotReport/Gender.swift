/// The animal's sex as the form offers it (SPEC §7).
public enum Gender: String, Sendable, Hashable, Codable, CaseIterable {
    case male, female

    /// Parses typed input: `male` / `female`, case-insensitive, surrounding spaces ignored.
    /// - Returns: `nil` for anything else.
    public init?(input: String) {
        self.init(rawValue: input.trimmingWhitespace().lowercased())
    }

    /// The list as shown in a prompt: `male, female`.
    public static var choices: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
