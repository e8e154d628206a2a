import PetSpotLocation

/// The validation rules of the report forms as pure functions.
///
/// Each takes what the user typed or picked and returns either the parsed
/// value or the ``FieldError`` to show; forms and the terminal flow call
/// the same functions, so a rule lives in one place.
public enum FieldRules {
    /// Allowed ages in whole years.
    public static let ageRange = 0...40
    /// Allowed count of digits in a phone number.
    public static let phoneDigits = 7...11

    /// Date: required, not after `today`.
    public static func date(_ date: CalendarDate?, today: CalendarDate) -> FieldError? {
        guard let date else { return FieldError(.date, FieldMessages.dateRequired) }
        return date > today ? FieldError(.date, FieldMessages.dateInFuture) : nil
    }

    /// Parses a typed date (`YYYY-MM-DD`, or `today`) and checks it.
    public static func parseDate(_ text: String, today: CalendarDate) -> Result<CalendarDate, FieldError> {
        let trimmed = text.trimmingWhitespace()
        if trimmed.isEmpty { return .failure(FieldError(.date, FieldMessages.dateRequired)) }
        if trimmed.lowercased() == "today" { return .success(today) }
        guard let parsed = CalendarDate(iso: trimmed) else {
            return .failure(FieldError(.date, FieldMessages.dateInvalid))
        }
        if let problem = date(parsed, today: today) { return .failure(problem) }
        return .success(parsed)
    }

    /// Species: required.
    public static func species(_ species: Species?) -> FieldError? {
        species == nil ? FieldError(.species, FieldMessages.speciesRequired) : nil
    }

    /// Race/breed: required (non-empty after trimming) when `required`.
    public static func race(_ race: String, required: Bool) -> FieldError? {
        required && race.trimmingWhitespace().isEmpty ? FieldError(.race, FieldMessages.raceRequired) : nil
    }

    /// Gender: required.
    public static func gender(_ gender: Gender?) -> FieldError? {
        gender == nil ? FieldError(.gender, FieldMessages.genderRequired) : nil
    }

    /// Age: optional; when given a whole number in 0…40.
    ///
    /// `""` → `nil`; `"4.5"` and `"abc"` → "Age must be a whole number";
    /// `"-1"`, `"41"` → "Age must be between 0 and 40".
    public static func age(_ text: String) -> Result<Int?, FieldError> {
        let trimmed = text.trimmingWhitespace()
        if trimmed.isEmpty { return .success(nil) }
        var digits = Substring(trimmed)
        let negative = digits.first == "-"
        if negative || digits.first == "+" { digits = digits.dropFirst() }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCIIDigit) else {
            return .failure(FieldError(.age, FieldMessages.ageWholeNumber))
        }
        // Anything too long for Int is out of range anyway.
        guard digits.count <= 6, let magnitude = Int(digits) else {
            return .failure(FieldError(.age, FieldMessages.ageRange))
        }
        let value = negative ? -magnitude : magnitude
        return ageRange.contains(value) ? .success(value) : .failure(FieldError(.age, FieldMessages.ageRange))
    }

    /// Parses a decimal number typed with either `.` or `,` as the decimal
    /// separator (`"52.2297"`, `"52,2297"`, `"-0,5"`).
    ///
    /// No thousands separators, no exponents, no `nan`/`inf`: only an optional
    /// sign, digits, and at most one separator with digits on at least one side.
    public static func parseDecimal(_ text: String) -> Double? {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty, trimmed.count <= 40 else { return nil }
        var body = Substring(trimmed)
        var sign = ""
        if body.first == "-" || body.first == "+" {
            sign = body.first == "-" ? "-" : ""
            body = body.dropFirst()
        }
        let parts = body.split(separator: body.contains(",") ? "," : ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigit) }),
            parts.contains(where: { !$0.isEmpty })
        else { return nil }
        let integer = parts[0].isEmpty ? "0" : String(parts[0])
        let fraction = parts.count == 2 && !parts[1].isEmpty ? "." + parts[1] : ""
        return Double(sign + integer + fraction)
    }

    /// Latitude: a number in [-90, 90]; empty is allowed unless `required`.
    public static func latitude(_ text: String, required: Bool) -> Result<Double?, FieldError> {
        coordinate(
            text, required: required, field: .latitude, isValid: Coordinate.isValidLatitude,
            missing: FieldMessages.latitudeRequired, notNumber: FieldMessages.latitudeNotNumber,
            outOfRange: FieldMessages.latitudeRange)
    }

    /// Longitude: a number in [-180, 180]; empty is allowed unless `required`.
    public static func longitude(_ text: String, required: Bool) -> Result<Double?, FieldError> {
        coordinate(
            text, required: required, field: .longitude, isValid: Coordinate.isValidLongitude,
            missing: FieldMessages.longitudeRequired, notNumber: FieldMessages.longitudeNotNumber,
            outOfRange: FieldMessages.longitudeRange)
    }

    private static func coordinate(
        _ text: String, required: Bool, field: ReportField, isValid: (Double) -> Bool, missing: String,
        notNumber: String, outOfRange: String
    ) -> Result<Double?, FieldError> {
        if text.trimmingWhitespace().isEmpty {
            return required ? .failure(FieldError(field, missing)) : .success(nil)
        }
        guard let value = parseDecimal(text) else { return .failure(FieldError(field, notNumber)) }
        return isValid(value) ? .success(value) : .failure(FieldError(field, outOfRange))
    }

    /// Description and address: hard capped at 500 characters, with no
    /// error (seeds 003 and 004): the text beyond is cut, never refused.
    public static func capText(_ text: String) -> String {
        text.count > FieldMessages.maximumTextLength ? String(text.prefix(FieldMessages.maximumTextLength)) : text
    }

    /// Pet name: optional, at most 100 characters.
    public static func petName(_ text: String) -> FieldError? {
        text.trimmingWhitespace().count > FieldMessages.maximumPetNameLength
            ? FieldError(.petName, FieldMessages.petNameTooLong) : nil
    }

    /// The digits of a phone number when it is well formed: digits with
    /// optional spaces, dashes, dots or parentheses between them and an
    /// optional leading `+`, 7 to 11 digits in all.
    public static func phoneDigits(_ text: String) -> String? {
        var body = Substring(text.trimmingWhitespace())
        if body.first == "+" { body = body.dropFirst() }
        guard body.allSatisfy({ $0.isASCIIDigit || " -.()".contains($0) }) else { return nil }
        let digits = String(body.filter(\.isASCIIDigit))
        return phoneDigits.contains(digits.count) ? digits : nil
    }

    /// A phone number capped at ``phoneDigits`` upper bound (11) digits,
    /// silently: everything after the 11th digit is cut (SPEC §7: 7-11
    /// digits; there is no "too many digits" message in the seeds).
    /// `"+48 600 123 456 7"` → `"+48 600 123 456"`.
    public static func capPhone(_ text: String) -> String {
        var digits = 0
        for index in text.indices where text[index].isASCIIDigit {
            digits += 1
            if digits == phoneDigits.upperBound {
                let end = text.index(after: index)
                return end == text.endIndex ? text : String(text[..<end])
            }
        }
        return text
    }

    /// Phone: required, 7 to 11 digits, "Enter at least 7 digits" (seed
    /// 004). Checked as capped (``capPhone(_:)``): more than 11 digits are
    /// cut, not refused.
    public static func phone(_ text: String) -> FieldError? {
        phoneDigits(capPhone(text)) == nil ? FieldError(.phone, FieldMessages.phoneRequired) : nil
    }

    /// Caregiver phone: optional; when given, the same rule as ``phone(_:)``.
    public static func caregiverPhone(_ text: String) -> FieldError? {
        if text.trimmingWhitespace().isEmpty { return nil }
        return phoneDigits(capPhone(text)) == nil
            ? FieldError(.caregiverPhone, FieldMessages.caregiverPhoneInvalid) : nil
    }

    /// Email: required and well formed: one `@`, a non-empty local part of
    /// printable characters without spaces, and a domain with at least one
    /// dot, labels of letters, digits and hyphens, not starting or ending
    /// with a hyphen.
    public static func email(_ text: String) -> FieldError? {
        let trimmed = text.trimmingWhitespace()
        if trimmed.isEmpty { return FieldError(.email, FieldMessages.emailRequired) }
        return isValidEmail(trimmed) ? nil : FieldError(.email, FieldMessages.emailInvalid)
    }

    /// Whether `text` is a plausible email address (see ``email(_:)``).
    public static func isValidEmail(_ text: String) -> Bool {
        guard text.count <= 254 else { return false }
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, let local = parts.first, let domain = parts.last, !local.isEmpty,
            local.count <= 64,
            local.allSatisfy({ $0.isASCII && !$0.isWhitespace && $0 != "@" && ($0.asciiValue ?? 0) > 32 }),
            !local.hasPrefix("."), !local.hasSuffix("."), !local.contains("..")
        else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && label.first != "-" && label.last != "-"
                && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
        } && (labels.last?.count ?? 0) >= 2
    }

    /// Reward: optional free text, at most 200 characters.
    public static func reward(_ text: String) -> FieldError? {
        text.trimmingWhitespace().count > FieldMessages.maximumRewardLength
            ? FieldError(.reward, FieldMessages.rewardTooLong) : nil
    }
}
