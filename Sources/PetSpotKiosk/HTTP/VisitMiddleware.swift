import Foundation
import Hummingbird
import PetSpotKioskConfiguration

/// Finds the request's visit from its cookie, or opens one, and sets the
/// cookie on the answer when it opened one.
///
/// The cookie (`petspot_visit`) holds only the visit's 256-bit random id;
/// it is `HttpOnly`, `SameSite=Strict` and has no expiry (it ends with the
/// browser session, and the server forgets the visit at the idle reset
/// anyway). Static files, `/healthz` and `/admin/` pages get no visit.
public struct VisitMiddleware: RouterMiddleware {
    public typealias Context = KioskRequestContext
    /// The cookie's name.
    public static let cookieName = "petspot_visit"

    let store: VisitStore
    let defaultLanguage: KioskSettings.Language

    public init(store: VisitStore, defaultLanguage: KioskSettings.Language) {
        self.store = store
        self.defaultLanguage = defaultLanguage
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard !path.hasPrefix("/static/"), !path.hasPrefix("/admin/"), path != "/favicon.ico", path != "/healthz" else {
            return try await next(request, context)
        }
        var context = context
        if let visit = await store.visit(request.cookies[Self.cookieName]?.value) {
            context.visit = visit
        } else {
            let language = LanguageNegotiation.preferred(
                acceptLanguage: request.headers[.acceptLanguage], fallback: defaultLanguage)
            context.visit = await store.open(language: language)
            context.openedVisit = true
        }
        var response = try await next(request, context)
        if context.openedVisit, let visit = context.visit {
            response.setCookie(
                Cookie(name: Self.cookieName, value: visit.id, path: "/", httpOnly: true, sameSite: .strict))
        }
        return response
    }
}

/// Picks the page language from `Accept-Language`.
public enum LanguageNegotiation {
    /// The kiosk language the browser prefers most, or `fallback` when it names neither.
    public static func preferred(acceptLanguage: String?, fallback: KioskSettings.Language) -> KioskSettings.Language {
        guard let acceptLanguage else { return fallback }
        var best: (language: KioskSettings.Language, quality: Double)?
        for item in acceptLanguage.split(separator: ",").prefix(32) {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = parts.first?.lowercased() else { continue }
            let primary = tag.split(separator: "-").first.map(String.init) ?? tag
            guard let language = KioskSettings.Language(rawValue: primary) else { continue }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            if quality > 0, quality > (best?.quality ?? 0) { best = (language, quality) }
        }
        return best?.language ?? fallback
    }
}
