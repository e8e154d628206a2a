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

    // MARK: Helpers

    /// What every step's form post does first, written once: the visit must be on `step` with a form
    /// (else back to the step it is on); the posted fields go into the visit (`apply`, no checks);
    /// a post with `lang` (the language buttons submit the step's form) shows the same step in that
    /// language, and `action=back` the step before. Anything else is the step's own `action`.
    func stepPost(
        _ context: KioskRequestContext, step: FoundPetStep,
        apply: @Sendable (SubmittedForm, inout Visit) -> Void,
        action: (_ id: String, _ form: SubmittedForm) async -> Response
    ) async -> Response {
        guard let id = context.visit?.id, context.visit?.flow.step == step, let form = context.form else {
            return await redirectToStep(context)
        }
        let language = KioskSettings.Language(rawValue: form["lang"])
        let back = language == nil && form["action"] == "back"
        let visit = store.update(id) { visit in
            apply(form, &visit)
            if let language { visit.language = language }
            if back { visit.flow.back() }
            return visit
        }
        if language != nil || back { return redirect(visit.map(Self.path(of:)) ?? "/") }
        return await action(id, form)
    }

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

    /// A step's page (`render`, from the visit with its one-time notice taken out and the time left), or
    /// the step the visit is on.
    func stepPage(
        _ context: KioskRequestContext, step: FoundPetStep, render: (Visit, Duration?) -> PageView
    ) async -> Response {
        guard let (visit, remaining) = await takeNotice(context, step: step) else {
            return await redirectToStep(context)
        }
        return pages.response(render(visit, remaining))
    }

    /// The visit for a step's page with its one-time notice taken out, and the time left before the idle reset;
    /// `nil` when the visit is not on `step`.
    func takeNotice(_ context: KioskRequestContext, step: FoundPetStep) async -> (Visit, Duration?)? {
        guard let id = context.visit?.id else { return nil }
        let visit = store.update(id) { visit -> Visit? in
            guard visit.flow.step == step else { return nil }
            let shown = visit
            visit.notice = nil
            return shown
        }
        guard let found = visit, let shown = found else { return nil }
        return (shown, store.remaining(id))
    }

    func redirectToStep(_ context: KioskRequestContext) async -> Response {
        guard let id = context.visit?.id, let visit = store.visit(id) else { return redirect("/") }
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
}
