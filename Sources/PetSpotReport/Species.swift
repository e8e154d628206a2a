/// The species a report can name (SPEC §7), in the order the form lists them.
public enum Species: String, Sendable, Hashable, Codable, CaseIterable {
    case dog, cat, bird, rabbit, rodent, reptile, other

    /// Parses typed input: a species name, case-insensitive, surrounding spaces ignored.
    /// - Returns: `nil` when the text names no species on the fixed list.
    public init?(input: String) {
        self.init(rawValue: input.trimmingWhitespace().lowercased())
    }

    /// The list as shown in a prompt: `dog, cat, bird, rabbit, rodent, reptile, other`.
    public static var choices: String { allCases.map(\.rawValue).joined(separator: ", ") }
}
