import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Reads every POST's form (bounded) and checks its CSRF token.
///
/// The token is the visit's own (``Visit/csrfToken``), in the form field
/// `_csrf` or, for the enhancement script's requests, the `X-CSRF-Token`
/// header. A POST without the right token (a stale page after an idle
/// reset, or another site) gets 403 and changes nothing.
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

    let pages: PageRenderer

    public init(pages: PageRenderer) { self.pages = pages }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        guard request.method == .post, let visit = context.visit else { return try await next(request, context) }
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
        let token = request.headers[.kioskCSRFToken] ?? form[Self.tokenField]
        guard !context.openedVisit, Token.equal(token, visit.csrfToken) else {
            return pages.expired(visit: visit)
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
