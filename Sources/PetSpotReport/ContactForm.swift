/// Step 3 of the found-pet flow: how to reach the finder.
///
/// Phone (7-11 digits) and a valid email are required; reward, caregiver
/// phone (7-11 digits when given) and address (at most 500 characters)
/// are optional.
public struct ContactForm: Sendable, Hashable {
    public var phone: String
    public var email: String
    public var reward: String
    public var caregiverPhone: String
    public var address: String

    /// Creates an empty contact step (or a pre-filled one).
    public init(
        phone: String = "", email: String = "", reward: String = "", caregiverPhone: String = "", address: String = ""
    ) {
        self.phone = phone
        self.email = email
        self.reward = reward
        self.caregiverPhone = caregiverPhone
        self.address = address
    }

    /// The fields of this step, in display order.
    public static let fields: [ReportField] = [.phone, .email, .reward, .caregiverPhone, .address]

    /// The error of one field.
    public func error(for field: ReportField) -> FieldError? {
        switch field {
        case .phone: FieldRules.phone(phone)
        case .email: FieldRules.email(email)
        case .reward: FieldRules.reward(reward)
        case .caregiverPhone: FieldRules.caregiverPhone(caregiverPhone)
        case .address: FieldRules.address(address)
        default: nil
        }
    }

    /// The "Continue" pass: every error at once, in display order.
    public func validate() -> [FieldError] { Self.fields.compactMap(error(for:)) }

    /// The checked values, or every error at once.
    public func validated() -> Result<FoundPetContact, ValidationErrors> {
        let errors = validate()
        guard errors.isEmpty else { return .failure(ValidationErrors(errors)) }
        func optional(_ text: String) -> String? {
            let trimmed = text.trimmingWhitespace()
            return trimmed.isEmpty ? nil : trimmed
        }
        return .success(
            FoundPetContact(
                phone: phone.trimmingWhitespace(), email: email.trimmingWhitespace(), reward: optional(reward),
                caregiverPhone: optional(caregiverPhone), address: optional(address)))
    }
}

/// The checked contact details of a found-pet report.
public struct FoundPetContact: Sendable, Hashable, Codable {
    /// As typed, trimmed.
    public var phone: String
    public var email: String
    public var reward: String?
    public var caregiverPhone: String?
    public var address: String?

    public init(phone: String, email: String, reward: String?, caregiverPhone: String?, address: String?) {
        self.phone = phone
        self.email = email
        self.reward = reward
        self.caregiverPhone = caregiverPhone
        self.address = address
    }
}
