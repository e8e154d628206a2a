import FoundationEssentials
import Hummingbird
import PetSpotKioskConfiguration
import PetSpotReport

/// The welcome page and the visit-wide switches: start, language, display.
extension KioskRoutes {
    // MARK: Welcome, start, language

    /// The welcome page belongs to no visit: it holds no token and nothing
    /// on it expires, however long it is shown. A visit in progress goes
    /// back to its step; the one a thank-you page left (holding only the
    /// reference) ends here, so the next person starts afresh in the
    /// station's language.
    func welcome(_ request: Request, _ context: KioskRequestContext) async -> Response {
        if let visit = context.visit {
            if visit.hasContent { return redirect(Self.path(of: visit)) }
            store.end(visit.id, reason: "finished")
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
        if let leftover = context.visit { store.end(leftover.id, reason: "finished") }
        let language =
            context.form.flatMap { KioskSettings.Language(rawValue: $0["lang"]) } ?? defaultLanguage
        guard let opened = store.open(language: language) else {
            let t = KioskStrings.of(language)
            var page = builder.welcome(language: language, station: defaultLanguage)
            page.toast = t.stationBusy
            return pages.response(page, status: .serviceUnavailable)
        }
        let today = dependencies.today()
        let largeText = context.form?["display"] == "large"
        let visit = store.update(opened.id) { visit in
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
            store.update(id) { $0.language = language }
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
        store.update(id) { $0.largeText = large }
        if request.headers[.accept]?.contains("application/json") == true {
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(
                    byteBuffer: ByteBuffer(string: large ? #"{"display":"large"}"# : #"{"display":"standard"}"#)))
        }
        let back = form["return"]
        return redirect(Self.knownPaths.contains(back) ? back : "/")
    }
}
