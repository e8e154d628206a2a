import FoundationEssentials

/// The three steps of reporting a found pet, in order.
public enum FoundPetStep: Int, Sendable, Hashable, CaseIterable, Comparable {
    /// The photo (mandatory).
    case photo = 1
    /// The pet's details.
    case details = 2
    /// The finder's contact.
    case contact = 3

    public static func < (lhs: FoundPetStep, rhs: FoundPetStep) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The step's title.
    public var title: String {
        switch self {
        case .photo: "Photo"
        case .details: "Pet details"
        case .contact: "Contact"
        }
    }
}

/// The state of the found-pet flow as a value: the current step and every
/// step's inputs.
///
/// ``continue(today:)`` validates the current step in one pass and moves on
/// only when it has no errors; ``back()`` never validates. When the last
/// step passes, ``report(id:createdAt:today:)`` assembles the report.
public struct FoundPetFlow: Sendable, Hashable {
    /// Where the user is.
    public private(set) var step: FoundPetStep = .photo
    /// Step 1.
    public var attachment: AttachmentStatus = .empty
    /// Step 2.
    public var details = FoundPetDetailsForm()
    /// Step 3.
    public var contact = ContactForm()

    /// Creates a flow at its first step.
    public init() {}

    /// The photo step's errors: none while a photo is attached and its
    /// draft file exists (seed 000: a draft counts only while its file does).
    public func photoErrors() -> [FieldError] {
        attachment.draft?.isOnDisk == true ? [] : [FieldError(.photo, FieldMessages.photoRequired)]
    }

    /// Seed 000's rule, checked before the photo step's Continue and before
    /// submit: a photo counts only while its draft file exists. When there
    /// is none (or its file is gone) the attachment is emptied, the flow
    /// goes back to the photo step, and "Photo is mandatory" is returned.
    public mutating func checkPhoto() -> FieldError? {
        guard let problem = photoErrors().first else { return nil }
        if attachment.draft != nil { attachment.handle(.remove) }
        step = .photo
        return problem
    }

    /// The current step's errors, all at once.
    public func errors(today: CalendarDate) -> [FieldError] {
        switch step {
        case .photo: photoErrors()
        case .details: details.validate(today: today)
        case .contact: contact.validate()
        }
    }

    /// "Continue": validates the current step and, when valid, moves to the next.
    /// - Returns: the errors that kept the user on this step (empty when it moved
    ///   on, or when the last step is complete).
    @discardableResult
    public mutating func `continue`(today: CalendarDate) -> [FieldError] {
        if step == .photo, let missing = checkPhoto() { return [missing] }
        let errors = errors(today: today)
        guard errors.isEmpty else { return errors }
        if let next = FoundPetStep(rawValue: step.rawValue + 1) { step = next }
        return []
    }

    /// "Back": the previous step, inputs kept.
    public mutating func back() {
        if let previous = FoundPetStep(rawValue: step.rawValue - 1) { step = previous }
    }

    /// Empties every step and removes the photo from the state (the caller clears the cache).
    public mutating func reset() {
        self = FoundPetFlow()
    }

    /// The finished report, or every error of every step.
    public func report(
        id: UUID = UUID(), createdAt: Date = Date(), today: CalendarDate
    ) -> Result<FoundPetReport, ValidationErrors> {
        let photoErrors = photoErrors()
        let detailsResult = details.validated(today: today)
        let contactResult = contact.validated()
        guard photoErrors.isEmpty, let draft = attachment.draft, case .success(let details) = detailsResult,
            case .success(let contact) = contactResult
        else {
            return .failure(
                ValidationErrors(
                    photoErrors + (detailsResult.failure?.errors ?? []) + (contactResult.failure?.errors ?? [])))
        }
        return .success(
            FoundPetReport(
                id: id, createdAt: createdAt,
                photo: FoundPetReport.Photo(
                    file: "\(id.uuidString.lowercased()).\(draft.info.format.fileExtension)",
                    format: draft.info.format, mimeType: draft.info.format.mimeType, width: draft.info.width,
                    height: draft.info.height, bytes: draft.byteCount),
                details: details, contact: contact))
    }
}
