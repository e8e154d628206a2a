import FoundationEssentials
import Hummingbird
import PetSpotKioskConfiguration

/// Finds the request's visit from its cookie. It never opens one: a visit
/// starts at the visitor's first tap (`POST /start`, ``KioskRoutes``), so the
/// welcome page works however long it has been shown.
///
/// The cookie (`petspot_visit`) holds only the visit's 256-bit random id;
/// it is `HttpOnly`, `SameSite=Strict` and has no expiry (it ends with the
/// browser session, and the server forgets the visit at the idle reset
/// anyway). Static files, `/healthz` and `/admin/` pages are not looked up.
public struct VisitMiddleware: RouterMiddleware {
    public typealias Context = KioskRequestContext
    /// The cookie's name.
    public static let cookieName = "petspot_visit"

    let store: VisitStore

    public init(store: VisitStore) {
        self.store = store
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let path = request.uri.path
        guard !path.hasPrefix("/static/"), !path.hasPrefix("/admin/"), path != "/favicon.ico", path != "/healthz" else {
            return try await next(request, context)
        }
        var context = context
        context.visit = store.visit(request.cookies[Self.cookieName]?.value)
        return try await next(request, context)
    }

    /// The cookie of `visit` (set when a visit starts).
    public static func cookie(_ visit: Visit) -> Cookie {
        Cookie(name: cookieName, value: visit.id, path: "/", httpOnly: true, sameSite: .strict)
    }

    /// A cookie that makes the browser forget its visit's (after Cancel, or on the welcome page).
    public static var clearingCookie: Cookie {
        Cookie(name: cookieName, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict)
    }
}
