import HTTPTypes
import Hummingbird

/// Headers on every answer: nothing is cached (a shared screen's Back button
/// must show nothing of an earlier visit), a Content-Security-Policy that
/// allows only the kiosk's own script and stylesheet (no inline script), no
/// framing, no referrer, no MIME sniffing.
public struct SecurityHeadersMiddleware<Context: RequestContext>: RouterMiddleware {
    /// The policy: own files only; forms post only to the kiosk.
    public static var contentSecurityPolicy: String {
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
            + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
    }

    public init() {}

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as any HTTPResponseError {
            response = Response(
                status: error.status,
                headers: [.contentType: "text/plain; charset=utf-8"],
                body: .init(byteBuffer: ByteBuffer(string: "\(error.status.code) \(error.status.reasonPhrase)\n")))
        }
        let isStatic = request.uri.path.hasPrefix("/static/")
        response.headers[.cacheControl] = isStatic ? "public, max-age=300" : "no-store"
        if !isStatic { response.headers[.kioskPragma] = "no-cache" }
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[.kioskReferrerPolicy] = "no-referrer"
        response.headers[.kioskFrameOptions] = "DENY"
        response.headers[.kioskPermissionsPolicy] = "geolocation=(), microphone=(), payment=()"
        return response
    }
}

extension HTTPField.Name {
    static let kioskPragma = HTTPField.Name("Pragma")!
    static let kioskReferrerPolicy = HTTPField.Name("Referrer-Policy")!
    static let kioskFrameOptions = HTTPField.Name("X-Frame-Options")!
    static let kioskPermissionsPolicy = HTTPField.Name("Permissions-Policy")!
    static let kioskCSRFToken = HTTPField.Name("X-CSRF-Token")!
    static let kioskFetchSite = HTTPField.Name("Sec-Fetch-Site")!
}
