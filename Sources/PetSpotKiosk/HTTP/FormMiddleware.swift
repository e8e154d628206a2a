import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PetSpotKioskConfiguration

/// Reads every POST's form (bounded) and checks its CSRF token.
///
/// The token is the visit's own (``Visit/csrfToken``), in the form field
/// `_csrf` or, for the enhancement script's requests, the `X-CSRF-Token`
/// header. A POST without the right token (a stale page after an idle
/// reset, or another site) gets 403 and changes nothing. So does any POST
/// without a live visit, except two that need none: `POST /start` (the
/// welcome page's button, which starts a visit: it is refused when it comes
/// from another site, ``SameOrigin``) and `POST /activity` (answers 410).
///
/// Limits: a photo upload (`multipart/form-data`) at most
/// ``KioskLimits/uploadBytes``, any other form ``KioskLimits/formBytes``.
/// A larger upload is read and thrown away (up to ``KioskLimits/drainBytes``,
/// so the browser sees the answer) and the route is told
/// (``KioskRequestContext/uploadTooLarge``).
public struct FormMiddleware: RouterMiddleware {
    public typealias Context = KioskRequestContext
    /// The CSRF field's name.
    public static let tokenField = "_csrf"

    /// The POSTs that need no visit's token.
    public static let withoutVisit: Set<String> = ["/start", "/activity"]

    let pages: PageRenderer
    let defaultLanguage: KioskSettings.Language

    public init(pages: PageRenderer, defaultLanguage: KioskSettings.Language = .en) {
        self.pages = pages
        self.defaultLanguage = defaultLanguage
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.method == .post else { return try await next(request, context) }
        let path = request.uri.path
        let tokenless = Self.withoutVisit.contains(path)
        guard tokenless || context.visit != nil else {
            return pages.expired(language: defaultLanguage)
        }
        if tokenless, !SameOrigin.allows(request) {
            return pages.expired(language: context.visit?.language ?? defaultLanguage)
        }
        var context = context
        let contentType = request.headers[.contentType] ?? ""
        let boundary = MultipartForm.boundary(contentType: contentType)
        let limit = boundary == nil ? KioskLimits.formBytes : KioskLimits.uploadBytes
        let (bytes, complete) = try await Self.read(request.body, limit: limit)
        if !complete {
            guard boundary != nil else { throw HTTPError(.contentTooLarge) }
            context.uploadTooLarge = true
            return try await next(request, context)
        }
        let form: SubmittedForm?
        if let boundary {
            form = MultipartForm.parse(bytes, boundary: boundary)
        } else if contentType.isEmpty || contentType.lowercased().hasPrefix("application/x-www-form-urlencoded") {
            form = SubmittedForm(fields: URLEncodedForm.parse(String(decoding: bytes, as: UTF8.self)))
        } else {
            form = nil
        }
        guard let form else { throw HTTPError(.badRequest) }
        if !tokenless {
            guard let visit = context.visit,
                Token.equal(request.headers[.kioskCSRFToken] ?? form[Self.tokenField], visit.csrfToken)
            else {
                return pages.expired(language: context.visit?.language ?? defaultLanguage)
            }
        }
        context.form = form
        return try await next(request, context)
    }

    /// Reads up to `limit` bytes of `body`. - Returns: the bytes, and `false`
    /// when the body was longer (the rest is read and dropped, up to
    /// ``KioskLimits/drainBytes``).
    static func read(_ body: RequestBody, limit: Int) async throws -> (bytes: [UInt8], complete: Bool) {
        var bytes: [UInt8] = []
        var total = 0
        for try await buffer in body {
            total += buffer.readableBytes
            if total <= limit {
                bytes.append(contentsOf: buffer.readableBytesView)
            } else {
                bytes = []
                if total > KioskLimits.drainBytes { break }
            }
        }
        return (bytes, total <= limit)
    }
}

/// Whether a request comes from the kiosk's own pages, by what the browser
/// says about it (Fetch Metadata, then `Origin`): a form on another site
/// that posts here is refused. A request that says neither (not from a
/// browser: a script on the station) is allowed; it is no cross-site request.
public enum SameOrigin {
    public static func allows(_ request: Request) -> Bool {
        if let site = request.headers[.kioskFetchSite]?.lowercased() {
            return site == "same-origin" || site == "none"
        }
        guard let origin = request.headers[.origin] else { return true }
        guard let host = request.head.authority,
            let url = URL(string: origin), let originHost = url.host
        else { return false }  // "null" (a sandboxed frame, a file) or garbage
        let originAuthority = url.port.map { "\(originHost):\($0)" } ?? originHost
        return originAuthority.lowercased() == host.lowercased()
    }
}
