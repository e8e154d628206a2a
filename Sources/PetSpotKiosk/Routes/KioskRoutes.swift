import FoundationEssentials
import PetSpotPOSIX
import Hummingbird
import Logging
import NIOPosix
import PetSpotKioskConfiguration
import PetSpotLocation
import PetSpotReport

/// The kiosk's pages and form posts: the found-pet flow as
/// POST-redirect-GET, so the browser's Back and reload never resubmit.
///
/// | route | does |
/// | --- | --- |
/// | `GET /` | welcome (or back to the visit's step); `?lang=pl` shows it in that language |
/// | `POST /start`, `POST /language`, `POST /display` | the first tap: start a visit (the only route that opens one); switch language; larger text and higher contrast for the visit |
/// | `GET/POST /report/photo`, `POST /report/photo/remove`, `POST /report/photo/continue`, `GET /report/photo/preview` | step 1 |
/// | `GET/POST /report/details` (`action` = continue, back, gps) | step 2 |
/// | `GET/POST /report/contact` (`action` = submit, back) | step 3 |
///
/// A step's form posted with `lang` (its language buttons are submit
/// buttons of that form) saves what was entered without checking it and
/// shows the same step in that language: switching language keeps
/// everything, without JavaScript too.
/// | `GET /report/thanks`, `POST /report/cancel` | the end of a visit |
/// | `POST /activity`, `GET/POST /still-there` | the idle reset |
/// | `GET /admin/status` | the outbox in figures, loopback peers only (``AdminRoutes``) |
struct KioskRoutes: Sendable {
    let store: VisitStore
    let pages: PageRenderer
    let builder: PageBuilder
    let dependencies: KioskDependencies
    /// `kiosk.language`: the language of the welcome screen and of every new visit (SPEC §7). The browser's
    /// `Accept-Language` plays no part: a station's browser locale is set for its date control, and a
    /// visit must never start in anything but the configured language.
    let defaultLanguage: KioskSettings.Language
    /// The GPS button's refusals, for `/admin/status`.
    let refusals: LocationRefusals
    let logger: Logger

    func register(on router: Router<KioskRequestContext>) {
        router.get("/") { request, context in await welcome(request, context) }
        router.post("/start") { request, context in await start(request, context) }
        router.post("/language") { _, context in await language(context) }
        router.post("/display") { request, context in await display(request, context) }
        router.get("/report/photo") { _, context in await photoPage(context) }
        router.post("/report/photo") { request, context in
            let answer = await uploadPhoto(context)
            // The enhancement script uploads with XMLHttpRequest, which would follow the redirect
            // itself (and take the page's one-time notice): tell it where to go instead.
            guard (request.headers[.accept] ?? "").contains("application/json"), let next = answer.headers[.location]
            else {
                return answer
            }
            var response = Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(string: "{\"next\":\"\(next)\"}")))
            if let cookie = answer.headers[.setCookie] { response.headers[.setCookie] = cookie }
            return response
        }
        router.post("/report/photo/remove") { _, context in await removePhoto(context) }
        router.post("/report/photo/continue") { _, context in await photoContinue(context) }
        router.get("/report/photo/preview") { _, context in await photoPreview(context) }
        router.get("/report/details") { request, context in await detailsPage(request, context) }
        router.post("/report/details") { request, context in await postDetails(request, context) }
        router.get("/report/contact") { _, context in await contactPage(context) }
        router.post("/report/contact") { _, context in await postContact(context) }
        router.get("/report/thanks") { _, context in await thanksPage(context) }
        router.post("/report/cancel") { _, context in await cancel(context) }
        router.post("/activity") { _, context in await activity(context) }
        router.get("/still-there") { _, context in await stillTherePage(context) }
        router.post("/still-there") { _, context in await stillHere(context) }
        router.get("/static/{name}") { _, context in pages.staticFile(context.parameters.get("name") ?? "") }
        router.get("/healthz") { _, _ in Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "ok\n"))) }
    }

    // MARK: Welcome, start, language

    /// The welcome page belongs to no visit: it holds no token and nothing
    /// on it expires, however long it is shown. A visit in progress goes
    /// back to its step; the one a thank-you page left (holding only the
    /// reference) ends here, so the next person starts afresh in the
    /// station's language.
    func welcome(_ request: Request, _ context: KioskRequestContext) async -> Response {
        if let visit = context.visit {
            if visit.hasContent { return redirect(Self.path(of: visit)) }
            await store.end(visit.id, reason: "finished")
        }
        let station = defaultLanguage
        let chosen = request.uri.queryParameters.get("lang").flatMap(KioskSettings.Language.init(rawValue:))
        let largeText = request.uri.queryParameters.get("display") == "large"
        var response = pages.response(
            builder.welcome(language: chosen ?? station, station: station, largeText: largeText))
        if request.cookies[VisitMiddleware.cookieName] != nil { response.setCookie(VisitMiddleware.clearingCookie) }
        return response
    }

    /// The visitor's first tap: starts a visit in the language the welcome
    /// page was shown in. It needs no token (the welcome page has none);
    /// another site's form is refused before this (``SameOrigin``). A visit
    /// in progress is never replaced: with its cookie, this goes back to its step.
    func start(_ request: Request, _ context: KioskRequestContext) async -> Response {
        if let visit = context.visit, visit.hasContent { return redirect(Self.path(of: visit)) }
        if let leftover = context.visit { await store.end(leftover.id, reason: "finished") }
        let language =
            context.form.flatMap { KioskSettings.Language(rawValue: $0["lang"]) } ?? defaultLanguage
        guard let opened = await store.open(language: language) else {
            let t = KioskStrings.of(language)
            var page = builder.welcome(language: language, station: defaultLanguage)
            page.toast = t.stationBusy
            return pages.response(page, status: .serviceUnavailable)
        }
        let today = dependencies.today()
        let largeText = context.form?["display"] == "large"
        let visit = await store.update(opened.id) { visit in
            visit.largeText = largeText
            visit.dateText = today.description
            visit.flow.details.description.date = today
            return visit
        }
        return withCookie(redirect(visit.map(Self.path(of:)) ?? "/"), opened)
    }

    func language(_ context: KioskRequestContext) async -> Response {
        guard let id = context.visit?.id, let form = context.form else { return redirect("/") }
        if let language = KioskSettings.Language(rawValue: form["lang"]) {
            await store.update(id) { $0.language = language }
        }
        let back = form["return"]
        return redirect(Self.knownPaths.contains(back) ? back : "/")
    }

    /// The display toggle: larger text and higher contrast for the rest of
    /// the visit (`display=large`), or back to standard. The script asks
    /// for JSON and stays on the page (what was typed stays where it is);
    /// without it, the step comes back.
    func display(_ request: Request, _ context: KioskRequestContext) async -> Response {
        guard let id = context.visit?.id, let form = context.form else { return redirect("/") }
        let large = form["display"] == "large"
        await store.update(id) { $0.largeText = large }
        if request.headers[.accept]?.contains("application/json") == true {
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(
                    byteBuffer: ByteBuffer(string: large ? #"{"display":"large"}"# : #"{"display":"standard"}"#)))
        }
        let back = form["return"]
        return redirect(Self.knownPaths.contains(back) ? back : "/")
    }

    // MARK: Step 1: photo

    func photoPage(_ context: KioskRequestContext) async -> Response {
        guard let (visit, remaining) = await takeNotice(context, step: .photo) else {
            return await redirectToStep(context)
        }
        return pages.response(builder.photo(visit, remaining: remaining))
    }

    func uploadPhoto(_ context: KioskRequestContext) async -> Response {
        guard let visit = context.visit, visit.flow.step == .photo else { return await redirectToStep(context) }
        // The language buttons submit this form: a file picked with them goes up, and the page comes back in
        // the language chosen.
        let switchTo = context.form.flatMap { KioskSettings.Language(rawValue: $0["lang"]) }
        if let switchTo { await store.update(visit.id) { $0.language = switchTo } }
        let t = KioskStrings.of(switchTo ?? visit.language)
        guard !context.uploadTooLarge else {
            await store.update(visit.id) {
                $0.notice = Notice(photoProblem: t.photoTooLargeFormat.filling(KioskLimits.photoBytes >> 20))
            }
            return redirect("/report/photo")
        }
        guard let file = context.form?.file, !file.data.isEmpty || !file.fileName.isEmpty else {
            // Nothing picked (the picker closed without a photo): seed 002's helper, not an error.
            if switchTo == nil { await store.update(visit.id) { $0.notice = Notice(pickerCancelled: true) } }
            return redirect("/report/photo")
        }
        // Cleaning (metadata out, orientation into the pixels, HEIC to JPEG) can take a second for a large
        // photo: it runs on NIO's blocking pool (a fixed number of threads, so uploads also queue there
        // rather than all decoding at once), never on an event loop or the shared cooperative pool.
        let drafts = visit.drafts
        let data = file.data
        let result: Result<PhotoDraft, PhotoDraftError>
        do {
            result = try await NIOThreadPool.singleton.runIfActive {
                Result<PhotoDraft, PhotoDraftError> { () throws(PhotoDraftError) in try drafts.store(data) }
            }
        } catch {
            result = .failure(.writeFailed("the photo pool is shutting down: \(error)"))
        }
        let fileName = Self.displayName(file.fileName)
        let open = await store.update(visit.id) { visit in
            visit.flow.attachment.handle(.startLoading)
            switch result {
            case .success(let draft):
                visit.flow.attachment.handle(.loaded(draft))
                visit.photoFileName = fileName
            case .failure(let error):
                visit.flow.attachment.handle(.failed(error))
                visit.photoFileName = nil
                visit.notice = Notice(photoProblem: Self.photoMessage(error, t))
            }
            return true
        }
        if case .failure(let error) = result, case .writeFailed(let detail) = error {
            logger.error("photo draft: \(detail)")
        }
        // The visit ended while the photo was written: leave nothing behind.
        if open == nil { try? visit.drafts.clear() }
        return redirect("/report/photo")
    }

    func removePhoto(_ context: KioskRequestContext) async -> Response {
        guard let visit = context.visit else { return redirect("/") }
        await store.update(visit.id) { visit in
            try? visit.drafts.clear()
            visit.flow.attachment.handle(.remove)
            visit.photoFileName = nil
        }
        return redirect("/report/photo")
    }

    func photoContinue(_ context: KioskRequestContext) async -> Response {
        guard let visit = context.visit, visit.flow.step == .photo else { return await redirectToStep(context) }
        let today = dependencies.today()
        let moved = await store.update(visit.id) { visit in
            // Seed 000: a draft counts only while its file exists (`continue` checks, and forgets a vanished one).
            let errors = visit.flow.continue(today: today)
            if visit.flow.attachment.draft == nil { visit.photoFileName = nil }
            if !errors.isEmpty { visit.notice = Notice(errors: errors) }
            return visit
        }
        return redirect(moved.map(Self.path(of:)) ?? "/")
    }

    func photoPreview(_ context: KioskRequestContext) async -> Response {
        guard let draft = context.visit?.flow.attachment.draft, let data = try? Data(contentsOf: draft.file) else {
            return Response(status: .notFound)
        }
        return Response(
            status: .ok, headers: [.contentType: draft.info.format.mimeType],
            body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    // MARK: Step 2: details

    func detailsPage(_ request: Request, _ context: KioskRequestContext) async -> Response {
        guard let id = context.visit?.id, context.visit?.flow.step == .details else {
            return await redirectToStep(context)
        }
        let alert = request.uri.queryParameters.get("alert")
        await store.update(id) { visit in
            guard case .alert(let permission, _) = visit.gps else { return }
            switch alert {
            case "settings": visit.gps = .alert(permission, settings: true)
            case "open": break
            default: visit.gps = nil  // Cancel
            }
        }
        guard let (visit, remaining) = await takeNotice(context, step: .details) else {
            return await redirectToStep(context)
        }
        return pages.response(builder.details(visit, remaining: remaining, today: dependencies.today()))
    }

    func postDetails(_ request: Request, _ context: KioskRequestContext) async -> Response {
        guard let id = context.visit?.id, context.visit?.flow.step == .details, let form = context.form else {
            return await redirectToStep(context)
        }
        let today = dependencies.today()
        if let language = KioskSettings.Language(rawValue: form["lang"]) {
            await store.update(id) { visit in
                Self.applyDetails(form, to: &visit)
                visit.language = language
            }
            return redirect("/report/details")
        }
        switch form["action"] {
        case "back":
            await store.update(id) { visit in
                Self.applyDetails(form, to: &visit)
                visit.flow.back()
            }
            return redirect("/report/photo")
        case "gps":
            let now = dependencies.clock.now()
            let allowed = await store.update(id) { visit in
                Self.applyDetails(form, to: &visit)
                return visit.gpsTaps.start(at: now)
            }
            guard allowed == true else { return await gpsBusy(request, context) }
            let outcome = await GPSFillAction(
                service: dependencies.location, request: LocationRequest(timeout: dependencies.gpsTimeout)
            ).perform()
            let visit = await store.update(id) { visit in
                visit.gpsTaps.finish()
                visit.flow.details.description.apply(outcome)
                switch outcome {
                case .filled(_, _, _, let accuracy, let horizontalAccuracy):
                    visit.gps = .filled(accuracy: accuracy, horizontalAccuracy: horizontalAccuracy)
                case .permissionAlert(let alert):
                    visit.gps = .alert(alert, settings: false)
                case .failed(let failure):
                    visit.gps = .failed(failure)
                }
                return visit
            }
            if case .permissionAlert(let permission) = outcome { noteRefusal(permission) }
            if (request.headers[.accept] ?? "").contains("application/json") {
                return GPSAnswer(outcome, language: visit?.language ?? .en).response()
            }
            if case .permissionAlert = outcome { return redirect("/report/details?alert=open") }
            return redirect("/report/details#location")
        default:
            let moved = await store.update(id) { visit in
                Self.applyDetails(form, to: &visit)
                let errors = visit.flow.continue(today: today)
                if !errors.isEmpty { visit.notice = Notice(toast: "", errors: errors) }
                return visit
            }
            return redirect(moved.map(Self.path(of:)) ?? "/")
        }
    }

    /// A GPS tap over the visit's budget (``GPSTapBudget``): the daemon is
    /// not asked; the visitor reads "please wait" and may tap again shortly.
    func gpsBusy(_ request: Request, _ context: KioskRequestContext) async -> Response {
        let t = KioskStrings.of(context.visit?.language ?? defaultLanguage)
        if (request.headers[.accept] ?? "").contains("application/json") {
            return GPSAnswer(busy: t.gpsBusy).response()
        }
        if let id = context.visit?.id { await store.update(id) { $0.notice = Notice(toast: t.gpsBusy) } }
        return redirect("/report/details#location")
    }

    /// Logs a refused GPS button with what the administrator needs (the
    /// account, what decided it, what to do) and keeps it for `/admin/status`:
    /// the visitor's page only says to type the coordinates or ask staff.
    func noteRefusal(_ permission: PermissionAlert) {
        let refusal = LocationRefusal(permission)
        refusals.record(refusal)
        logger.warning("GPS button refused: \(refusal.summary); to allow it, \(refusal.remedy)")
    }

    /// Puts the posted step 2 fields into the visit (no validation; Back keeps them too).
    static func applyDetails(_ form: SubmittedForm, to visit: inout Visit) {
        let previous = visit.flow.details.description
        visit.dateText = String(form["date"].trimmingWhitespace().prefix(10))
        var description = visit.flow.details.description
        description.date = CalendarDate(iso: visit.dateText)
        description.species = Species(rawValue: form["species"])
        description.race = String(form["race"].prefix(200))
        description.gender = Gender(rawValue: form["gender"])
        description.ageText = String(form["age"].prefix(10))
        description.latitudeText = String(form["latitude"].prefix(40))
        description.longitudeText = String(form["longitude"].prefix(40))
        // A hard cap, no error (seed 004).
        description.descriptionText = String(form["description"].prefix(FieldMessages.maximumTextLength))
        visit.flow.details.description = description
        visit.flow.details.chipNumber = String(form["chipNumber"].prefix(64))
        visit.flow.details.petName = String(form["petName"].prefix(200))
        if case .filled = visit.gps,
            previous.latitudeText != description.latitudeText || previous.longitudeText != description.longitudeText
        {
            visit.gps = nil  // typed over: no longer the station's position
        }
    }

    // MARK: Step 3: contact

    func contactPage(_ context: KioskRequestContext) async -> Response {
        guard let (visit, remaining) = await takeNotice(context, step: .contact) else {
            return await redirectToStep(context)
        }
        return pages.response(builder.contact(visit, remaining: remaining))
    }

    func postContact(_ context: KioskRequestContext) async -> Response {
        guard let id = context.visit?.id, context.visit?.flow.step == .contact, let form = context.form else {
            return await redirectToStep(context)
        }
        let today = dependencies.today()
        if let language = KioskSettings.Language(rawValue: form["lang"]) {
            await store.update(id) { visit in
                Self.applyContact(form, to: &visit)
                visit.language = language
            }
            return redirect("/report/contact")
        }
        if form["action"] == "back" {
            await store.update(id) { visit in
                Self.applyContact(form, to: &visit)
                visit.flow.back()
            }
            return redirect("/report/details")
        }
        let checked = await store.update(id) { visit -> Result<(FoundPetReport, PhotoDraft), ValidationErrors>? in
            Self.applyContact(form, to: &visit)
            let errors = visit.flow.errors(today: today)
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
                return .success((report, draft))
            case .failure(let errors):
                visit.notice = Notice(toast: "", errors: errors.errors)
                return .failure(errors)
            }
        }
        guard let checked, let result = checked, case .success(let (report, draft)) = result else {
            return await redirectToStep(context)
        }
        do {
            _ = try await dependencies.reports.save(report, photo: draft)
        } catch {
            logger.error("the report could not be queued: \(error)")
            let t = KioskStrings.of(context.visit?.language ?? .en)
            await store.update(id) { $0.notice = Notice(toast: t.submitFailed) }
            return redirect("/report/contact")
        }
        let reference = Self.reference(report.id)
        logger.info("report \(report.id.uuidString.lowercased()) queued (reference \(reference))")
        guard let next = await store.finish(id, language: context.visit?.language ?? .en, reference: reference) else {
            return redirect("/")
        }
        return withCookie(redirect("/report/thanks"), next)
    }

    /// Puts the posted step 3 fields into the visit (no validation; Back and the language keep them too).
    /// The phones are capped at 11 digits and the address at 500 characters by ``ContactForm``, silently.
    static func applyContact(_ form: SubmittedForm, to visit: inout Visit) {
        visit.flow.contact.phone = String(form["phone"].prefix(40))
        visit.flow.contact.email = String(form["email"].prefix(300))
        visit.flow.contact.reward = String(form["reward"].prefix(400))
        visit.flow.contact.caregiverPhone = String(form["caregiverPhone"].prefix(40))
        // A hard cap, no error (seed 004).
        visit.flow.contact.address = String(form["address"].prefix(FieldMessages.maximumTextLength))
    }

    // MARK: The end of a visit

    func thanksPage(_ context: KioskRequestContext) async -> Response {
        guard let visit = context.visit, let reference = visit.submittedReference else { return redirect("/") }
        return pages.response(builder.thanks(visit, reference: reference))
    }

    /// Ends the visit (deleting its draft at once); the welcome page is the next person's, in the station's language.
    func cancel(_ context: KioskRequestContext) async -> Response {
        guard let visit = context.visit else { return redirect("/") }
        await store.end(visit.id, reason: "cancelled")
        var response = redirect("/")
        response.setCookie(VisitMiddleware.clearingCookie)
        return response
    }

    // MARK: Idle reset

    func activity(_ context: KioskRequestContext) async -> Response {
        guard let id = context.visit?.id, await store.touch(id) else { return Response(status: .gone) }
        return Response(status: .noContent)
    }

    func stillTherePage(_ context: KioskRequestContext) async -> Response {
        guard let visit = context.visit, visit.hasContent, let remaining = await store.remaining(visit.id) else {
            return redirect("/")
        }
        return pages.response(builder.stillThere(visit, remaining: remaining))
    }

    func stillHere(_ context: KioskRequestContext) async -> Response {
        guard let id = context.visit?.id else { return redirect("/") }
        let visit = await store.update(id) { $0 }
        return redirect(visit.map(Self.path(of:)) ?? "/")
    }

    // MARK: Helpers

    static let knownPaths: Set<String> = ["/", "/report/photo", "/report/details", "/report/contact", "/report/thanks"]

    /// The page of the visit's current step ("/" before anything was entered).
    static func path(of visit: Visit) -> String {
        guard visit.hasContent else { return "/" }
        switch visit.flow.step {
        case .photo: return "/report/photo"
        case .details: return "/report/details"
        case .contact: return "/report/contact"
        }
    }

    /// The visit for a step's page with its one-time notice taken out, and the time left before the idle reset;
    /// `nil` when the visit is not on `step`.
    func takeNotice(_ context: KioskRequestContext, step: FoundPetStep) async -> (Visit, Duration?)? {
        guard let id = context.visit?.id else { return nil }
        let visit = await store.update(id) { visit -> Visit? in
            guard visit.flow.step == step else { return nil }
            let shown = visit
            visit.notice = nil
            return shown
        }
        guard let found = visit, let shown = found else { return nil }
        return (shown, await store.remaining(id))
    }

    func redirectToStep(_ context: KioskRequestContext) async -> Response {
        guard let id = context.visit?.id, let visit = await store.visit(id) else { return redirect("/") }
        return redirect(Self.path(of: visit))
    }

    func redirect(_ location: String) -> Response {
        Response(status: .seeOther, headers: [.location: location])
    }

    func withCookie(_ response: Response, _ visit: Visit) -> Response {
        var response = response
        response.setCookie(VisitMiddleware.cookie(visit))
        return response
    }

    /// A short reference for the thank-you page: `PS-` and the report id's first 8 hex digits.
    static func reference(_ id: UUID) -> String {
        "PS-" + id.uuidString.replacing("-", with: "").prefix(8).uppercased()
    }

    /// The file name to show: its last path component, printable, at most 80 characters.
    static func displayName(_ name: String) -> String {
        let last = name.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        let printable = String(
            String.UnicodeScalarView(
                last.unicodeScalars.filter {
                    // Foundation's controlCharacters: the Cc and Cf categories.
                    ![.control, .format].contains($0.properties.generalCategory)
                }))
        return printable.isEmpty ? "photo" : String(printable.prefix(80))
    }

    static func photoMessage(_ error: PhotoDraftError, _ t: KioskStrings) -> String {
        switch error {
        case .unsupportedFormat: t.photoUnsupported
        case .empty: t.photoEmpty
        case .tooLarge: t.photoTooLargeFormat.filling(KioskLimits.photoBytes >> 20)
        case .tooManyPixels(let limit): t.photoTooManyPixelsFormat.filling(limit / 1_000_000)
        case .damaged: t.photoDamaged
        case .rotationNotSupported: t.photoRotated
        default: t.photoSaveFailed
        }
    }
}
