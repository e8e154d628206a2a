/// Step 3 of the found-pet flow: how to reach the finder.
///
/// Phone (7-11 digits) and a valid email are required; reward, caregiver
/// phone (7-11 digits when given) and address are optional.
///
/// Caps, silent as in seed 004 (no error; what is beyond is cut on
/// assignment): the phones at 11 digits (``FieldRules/capPhone(_:)``), the
/// address at 500 characters (``FieldRules/capText(_:)``).
public struct ContactForm: Sendable, Hashable {
    public var phone: String {
        didSet { phone = FieldRules.capPhone(phone) }
    }
    public var email: String
    public var reward: String
    public var caregiverPhone: String {
        didSet { caregiverPhone = FieldRules.capPhone(caregiverPhone) }
    }
    public var address: String {
        didSet { if address.count > FieldMessages.maximumTextLength { address = FieldRules.capText(address) } }
    }

    /// Creates an empty contact step (or a pre-filled one).
    public init(
        phone: String = "", email: String = "", reward: String = "", caregiverPhone: String = "", address: String = ""
    ) {
        self.phone = FieldRules.capPhone(phone)
        self.email = email
        self.reward = reward
        self.caregiverPhone = FieldRules.capPhone(caregiverPhone)
        self.address = FieldRules.capText(address)
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
