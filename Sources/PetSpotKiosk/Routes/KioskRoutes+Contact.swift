import FoundationEssentials
import Hummingbird
import Logging
import PetSpotKioskConfiguration
import PetSpotOutbox
import PetSpotReport

/// Step 3: the finder's contact, and the submit.
extension KioskRoutes {
    func contactPage(_ context: KioskRequestContext) async -> Response {
        await stepPage(context, step: .contact) { builder.contact($0, remaining: $1) }
    }

    func postContact(_ context: KioskRequestContext) async -> Response {
        await stepPost(context, step: .contact, apply: Self.applyContact) { id, _ in
            await submit(id, language: context.visit?.language ?? defaultLanguage, context)
        }
    }

    /// Submit: every check, then the report into the outbox and the thank-you page; a refusal keeps the
    /// visitor on the step with everything entered.
    func submit(_ id: String, language: KioskSettings.Language, _ context: KioskRequestContext) async -> Response {
        let today = dependencies.today()
        let checked = store.update(id) { visit -> (FoundPetReport, PhotoDraft)? in
            // The flow's contact holds a number past the rule cut: the kiosk refuses it (never cuts).
            let errors = Self.errorsInOrder(visit.flow.errors(today: today) + Self.longPhoneErrors(visit))
            guard errors.isEmpty else {
                visit.notice = Notice(toast: "", errors: errors)
                return nil
            }
            // Seed 000, before submit: the photo counts only while its draft file exists; when it is gone the
            // visitor is back on the photo step with "Photo is mandatory" (everything else kept).
            if let missing = visit.flow.checkPhoto() {
                visit.photoFileName = nil
                visit.notice = Notice(errors: [missing])
                return nil
            }
            switch visit.flow.report(today: today) {
            case .success(let report):
                guard let draft = visit.flow.attachment.draft else { return nil }
                return (report, draft)
            case .failure(let errors):
                visit.notice = Notice(toast: "", errors: errors.errors)
                return nil
            }
        }
        guard let checked, let (report, draft) = checked else { return await redirectToStep(context) }
        do {
            _ = try await dependencies.reports.save(report, photo: draft)
        } catch {
            logger.error("the report could not be queued: \(error)")
            // Trying again cannot free a disk: the visitor is told to ask staff, and everything stays.
            let t = KioskStrings.of(language)
            let full = (error as? OutboxError)?.isStorageFull == true
            store.update(id) { $0.notice = Notice(toast: full ? t.submitStorageFull : t.submitFailed) }
            return redirect("/report/contact")
        }
        let reference = Self.reference(report.id)
        logger.info("report \(report.id.uuidString.lowercased()) queued (reference \(reference))")
        guard let next = store.finish(id, language: language, reference: reference) else {
            return redirect("/")
        }
        return withCookie(redirect("/report/thanks"), next)
    }

    /// Puts the posted step 3 fields into the visit (no validation; Back and the language keep them too).
    /// The address is capped at 500 characters by ``ContactForm``, silently (seed 004). A phone past the
    /// rule's digits is kept as typed in ``Visit/phonesAsTyped`` (``ContactForm`` would cut it): the page
    /// shows it and Submit refuses it.
    static func applyContact(_ form: SubmittedForm, to visit: inout Visit) {
        let phone = String(form["phone"].prefix(40))
        let caregiverPhone = String(form["caregiverPhone"].prefix(40))
        visit.flow.contact.phone = phone
        visit.flow.contact.email = String(form["email"].prefix(300))
        visit.flow.contact.reward = String(form["reward"].prefix(400))
        visit.flow.contact.caregiverPhone = caregiverPhone
        // A hard cap, no error (seed 004).
        visit.flow.contact.address = String(form["address"].prefix(FieldMessages.maximumTextLength))
        visit.phonesAsTyped = [:]
        for (field, typed) in [(ReportField.phone, phone), (.caregiverPhone, caregiverPhone)]
        where typed.count(where: { $0 >= "0" && $0 <= "9" }) > FieldRules.phoneDigits.upperBound {
            visit.phonesAsTyped[field] = typed
        }
    }

    /// "Enter at most 11 digits" beside each phone kept as typed.
    ///
    /// Why refuse rather than take up to E.164's 15 digits: 7-11 digits is the seed's rule (SPEC §7), the
    /// one the phone app and the backend hold the report to; a station taking more would send reports
    /// no other part accepts. Refused here, the visitor sees it while still at the screen and can write
    /// the number as the rule allows; what was typed stays until then.
    static func longPhoneErrors(_ visit: Visit) -> [FieldError] {
        ContactForm.fields.filter { visit.phonesAsTyped[$0] != nil }.map { FieldError($0, KioskStrings.phoneTooLong) }
    }

    /// `errors`, one a field, in the order the fields are shown.
    static func errorsInOrder(_ errors: [FieldError]) -> [FieldError] {
        let order = ReportField.allCases
        return errors.sorted {
            (order.firstIndex(of: $0.field) ?? 0) < (order.firstIndex(of: $1.field) ?? 0)
        }
    }
}
