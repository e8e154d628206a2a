/// Formats microchip (transponder) numbers as the form shows them.
///
/// Only digits are kept, at most 15 (ISO 11784 chips have 15), shown in
/// groups of five joined with dashes: `"123456"` → `"12345-6"`.
public enum MicrochipFormatter {
    /// The most digits a chip number has.
    public static let maximumDigits = 15
    /// Digits per displayed group.
    public static let groupSize = 5

    /// The digits of `input`, letters and punctuation dropped, capped at 15.
    public static func digits(_ input: String) -> String {
        String(input.filter(\.isASCIIDigit).prefix(maximumDigits))
    }

    /// The display form: ``digits(_:)`` grouped 5-5-5 with dashes.
    public static func format(_ input: String) -> String {
        var groups: [Substring] = []
        var rest = Substring(digits(input))
        while !rest.isEmpty {
            groups.append(rest.prefix(groupSize))
            rest = rest.dropFirst(groupSize)
        }
        return groups.joined(separator: "-")
    }
}
