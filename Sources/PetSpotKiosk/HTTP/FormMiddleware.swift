import FoundationEssentials
import HTTPTypes
import Hummingbird
import NIOCore
import PetSpotKioskConfiguration
import Synchronization

/// Checks every POST's visit and CSRF token, then reads its form (bounded).
///
/// The token is the visit's own (``Visit/csrfToken``), in the query
/// parameter `_csrf` (every form's `action` carries it) or, for the
/// enhancement script's requests, the `X-CSRF-Token` header. Both arrive
/// before the body: a POST without a live visit or without the right token
/// gets 403 and changes nothing, and its body is never read. Two POSTs need
/// no token: `POST /start` (the welcome page's button, which starts a
/// visit: it is refused when it comes from another site, ``SameOrigin``)
/// and `POST /activity` (answers 410).
///
/// Limits: a photo upload (`multipart/form-data`) at most
/// ``KioskLimits/uploadBytes``, any other form ``KioskLimits/formBytes``.
/// A larger upload is read and thrown away (up to ``KioskLimits/drainBytes``,
/// so the browser sees the answer) and the route is told
/// (``KioskRequestContext/uploadTooLarge``). At most
/// ``KioskLimits/concurrentUploads`` uploads are read at once, one per
/// visit; one more gets 503 before its body is read (``UploadSlots``), so
/// parallel uploads cannot grow the kiosk's memory past that many bounded
/// bodies.
public struct FormMiddleware: RouterMiddleware {
    public typealias Context = KioskRequestContext
    /// The CSRF query parameter's name.
    public static let tokenField = "_csrf"

    /// The POSTs that need no visit's token.
    public static let withoutVisit: Set<String> = ["/start", "/activity"]

    let pages: PageRenderer
    let defaultLanguage: KioskSettings.Language
    let uploads: UploadSlots

    public init(
        pages: PageRenderer, defaultLanguage: KioskSettings.Language = .en,
        uploads: UploadSlots = UploadSlots(KioskLimits.concurrentUploads)
    ) {
        self.pages = pages
        self.defaultLanguage = defaultLanguage
        self.uploads = uploads
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
        if tokenless {
            guard SameOrigin.allows(request) else {
                return pages.expired(language: context.visit?.language ?? defaultLanguage)
            }
        } else {
            let token = request.headers[.kioskCSRFToken] ?? request.uri.queryParameters.get(Self.tokenField)
            guard let visit = context.visit, let token, Token.equal(token, visit.csrfToken) else {
                return pages.expired(language: context.visit?.language ?? defaultLanguage)
            }
        }
        var context = context
        let contentType = request.headers[.contentType] ?? ""
        let boundary = MultipartForm.boundary(contentType: contentType)
        let read: (bytes: [UInt8], complete: Bool)
        if boundary == nil {
            read = try await Self.read(request.body, limit: KioskLimits.formBytes)
        } else {
            let visit = context.visit?.id ?? ""
            guard uploads.take(for: visit) else {
                return Response(
                    status: .serviceUnavailable,
                    headers: [.contentType: "text/plain; charset=utf-8", .retryAfter: "1"],
                    body: .init(byteBuffer: ByteBuffer(string: "503 another photo is being received\n")))
            }
            defer { uploads.give(for: visit) }
            read = try await Self.read(request.body, limit: KioskLimits.uploadBytes)
        }
        if !read.complete {
            guard boundary != nil else { throw HTTPError(.contentTooLarge) }
            context.uploadTooLarge = true
            return try await next(request, context)
        }
        let form: SubmittedForm?
        if let boundary {
            form = MultipartForm.parse(read.bytes, boundary: boundary)
        } else if contentType.isEmpty || contentType.lowercased().hasPrefix("application/x-www-form-urlencoded") {
            form = SubmittedForm(fields: URLEncodedForm.parse(String(decoding: read.bytes, as: UTF8.self)))
        } else {
            form = nil
        }
        guard let form else { throw HTTPError(.badRequest) }
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

/// A bound on upload bodies held in memory at once: at most `count` in
/// all, and one per visit (a visitor uploads one photo at a time).
/// ``take(for:)`` a slot before reading a body, ``give(for:)`` it back after.
public final class UploadSlots: Sendable {
    private let count: Int
    private let reading = Mutex<Set<String>>([])

    public init(_ count: Int) { self.count = max(1, count) }

    /// Takes a slot for the visit `id`. - Returns: `false` when all are taken or the visit has one.
    public func take(for id: String) -> Bool {
        reading.withLock { reading in
            guard reading.count < count, !reading.contains(id) else { return false }
            reading.insert(id)
            return true
        }
    }

    /// Gives the visit's slot back.
    public func give(for id: String) { _ = reading.withLock { $0.remove(id) } }
}
