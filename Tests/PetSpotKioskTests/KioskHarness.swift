import Foundation
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import Logging
import PetSpotKiosk
import PetSpotKioskConfiguration
import PetSpotLocation
import PetSpotOutbox
import PetSpotReport
import Synchronization

/// A `LocationService` that answers what it was given.
struct StubLocation: LocationService {
    var state: Result<AuthorizationState, LocationError>
    var fix: Result<LocationFix, LocationError>

    static let warsaw = LocationFix(
        coordinate: Coordinate(latitude: 52.2297, longitude: 21.0122), horizontalAccuracy: 15, mode: .twoD,
        source: .static)

    static let authorized = StubLocation(
        state: .success(AuthorizationState(status: .authorized, accuracy: .full, decidedBy: .rule)),
        fix: .success(warsaw))

    func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix { try fix.get() }
    func updates(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error> {
        AsyncThrowingStream { $0.finish() }
    }
    func authorizationStatus() async throws(LocationError) -> AuthorizationState { try state.get() }
    func requestAuthorization(accuracy: AccuracyAuthorization) async throws(LocationError) -> AuthorizationState {
        try state.get()
    }
}

/// A `LocationService` that notes each method the kiosk calls (the wire protocol's names), answering as `inner`.
final class CountingLocation: LocationService {
    let inner: StubLocation
    private let log = Mutex<[String]>([])
    var calls: [String] { log.withLock { $0 } }

    init(_ inner: StubLocation) { self.inner = inner }

    func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix {
        log.withLock { $0.append("location.get") }
        return try await inner.location(request)
    }
    func updates(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error> { inner.updates(options) }
    func authorizationStatus() async throws(LocationError) -> AuthorizationState {
        log.withLock { $0.append("authorization.status") }
        return try await inner.authorizationStatus()
    }
    func requestAuthorization(accuracy: AccuracyAuthorization) async throws(LocationError) -> AuthorizationState {
        log.withLock { $0.append("authorization.request") }
        return try await inner.requestAuthorization(accuracy: accuracy)
    }
}

/// A report sink on a full disk: refuses every report as the outbox does (`OutboxError.storageFull`).
struct FullDiskSink: FoundPetReportSink {
    func save(_ report: FoundPetReport, photo: PhotoDraft) async throws -> String {
        throw OutboxError.storageFull(detail: "0 bytes free")
    }
}

/// Keeps the reports it is given (and whether their photo file was there).
final class RecordingSink: FoundPetReportSink {
    private let saved = Mutex<[FoundPetReport]>([])
    var reports: [FoundPetReport] { saved.withLock { $0 } }

    func save(_ report: FoundPetReport, photo: PhotoDraft) async throws -> String {
        guard FileManager.default.fileExists(atPath: photo.file.path) else { throw CocoaError(.fileNoSuchFile) }
        saved.withLock { $0.append(report) }
        return report.id.uuidString
    }
}

/// A clock the test moves by hand.
final class ManualClock: Sendable {
    private let offset = Mutex<Duration>(.zero)
    private let start = ContinuousClock.now
    func advance(_ duration: Duration) { offset.withLock { $0 += duration } }
    var kioskClock: KioskClock { KioskClock { [self] in start + offset.withLock { $0 } } }
}

/// The kiosk app in-process (HummingbirdTesting's router framework) with
/// stub dependencies, a manual clock and a temporary drafts directory.
struct KioskHarness {
    let directory: URL
    let store: VisitStore
    let clock = ManualClock()
    let sink = RecordingSink()
    let app: Application<RouterResponder<KioskRequestContext>>
    let settings: KioskSettings
    /// What the kiosk logged.
    let logs = InMemoryLogHandler()

    init(
        location: any LocationService = StubLocation.authorized, idleReset: Duration = .seconds(120),
        language: KioskSettings.Language = .en, reports: (any FoundPetReportSink)? = nil,
        stationStatus: (@Sendable () async -> StationStatus)? = nil,
        photoSources: [KioskSettings.PhotoSource] = [.camera], peers: StationPeers? = nil
    ) async throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kiosk-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var settings = KioskSettings()
        settings.idleReset = idleReset
        settings.language = language
        settings.photoSources = photoSources
        self.settings = settings
        var dependencies = KioskDependencies(
            location: location, reports: reports ?? sink, draftsBase: directory, gpsTimeout: .seconds(1),
            today: { CalendarDate(year: 2026, month: 11, day: 25)! }, clock: clock.kioskClock)
        if let stationStatus { dependencies.stationStatus = stationStatus }
        store = VisitStore(idleReset: idleReset, draftsBase: directory, clock: clock.kioskClock)
        let logs = self.logs
        let router = KioskApplication.buildRouter(
            settings: settings, dependencies: dependencies, pages: try await PageRenderer.load(), store: store,
            peers: peers, logger: Logger(label: "petspot-kiosk") { _ in logs })
        // With `peers`, the server the kiosk runs (``StationPeers`` decides on every `.live` connection).
        app = Application(router: router, server: peers.map { .station(peers: $0) } ?? .http1())
    }

    /// Runs `body` against the app, then removes the temporary directory.
    /// - Parameter mode: `.router` (in-process, no peer address) or `.live` (a real server on loopback).
    func run(
        _ mode: TestingSetup = .router, _ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void
    )
        async throws
    {
        defer { try? FileManager.default.removeItem(at: directory) }
        try await app.test(mode, body)
    }

    /// The photo drafts that exist on disk.
    var draftFiles: [String] {
        let root = directory.appendingPathComponent("PetSpot/ReportFoundPet")
        guard let enumerator = FileManager.default.enumerator(atPath: root.path) else { return [] }
        return enumerator.compactMap { $0 as? String }.filter { $0.contains("photo.") }
    }
}

/// A browser: keeps the visit cookie, reads the CSRF token from each page.
final class Browser: Sendable {
    let client: any TestClientProtocol
    private let state = Mutex<(cookie: String?, csrf: String?)>((nil, nil))

    init(_ client: any TestClientProtocol) { self.client = client }

    var cookie: String? { state.withLock { $0.cookie } }
    var csrf: String { state.withLock { $0.csrf } ?? "" }

    /// GET `path`; follows nothing.
    @discardableResult
    func get(_ path: String, headers: HTTPFields = [:]) async throws -> TestResponse {
        try await send(path, method: .get, headers: headers, body: nil)
    }

    /// POST a urlencoded form with this visit's CSRF token (unless `token` says otherwise).
    @discardableResult
    func post(
        _ path: String, _ fields: [(String, String)] = [], token: String? = nil, headers: HTTPFields = [:]
    )
        async throws -> TestResponse
    {
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        let body = URLEncodedForm.encode(fields)
        return try await send(
            Self.withToken(path, token ?? csrf), method: .post, headers: headers, body: ByteBuffer(string: body))
    }

    /// POST a multipart form with one file (and `fields`, e.g. a language button's `lang`).
    @discardableResult
    func upload(
        _ path: String, fileName: String, data: Data, token: String? = nil, fields: [(String, String)] = []
    ) async throws -> TestResponse {
        let boundary = "----kiosk-test-\(UUID().uuidString)"
        var body = Data()
        for (name, value) in fields {
            body.append(
                Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8))
        }
        body.append(
            Data(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"\(fileName)\"\r\nContent-Type: application/octet-stream\r\n\r\n"
                    .utf8))
        body.append(data)
        body.append(Data("\r\n--\(boundary)--\r\n".utf8))
        return try await send(
            Self.withToken(path, token ?? csrf), method: .post,
            headers: [.contentType: "multipart/form-data; boundary=\(boundary)"], body: ByteBuffer(bytes: body))
    }

    /// `path` as a page's form posts it: with the visit's token in the `_csrf` query parameter.
    static func withToken(_ path: String, _ token: String) -> String {
        let encoded = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? token
        return path + (path.contains("?") ? "&" : "?") + "_csrf=" + encoded
    }

    /// GET `path` and follow redirects; returns the last page.
    @discardableResult
    func follow(_ response: TestResponse) async throws -> TestResponse {
        var response = response
        var hops = 0
        while response.status == .seeOther, let location = response.headers[.location], hops < 5 {
            // Browsers never send the fragment.
            response = try await get(String(location.prefix { $0 != "#" }))
            hops += 1
        }
        return response
    }

    private func send(
        _ path: String, method: HTTPRequest.Method, headers: HTTPFields, body: ByteBuffer?
    ) async throws
        -> TestResponse
    {
        var headers = headers
        if let cookie, headers[.cookie] == nil { headers[.cookie] = "petspot_visit=\(cookie)" }
        let response = try await client.execute(uri: path, method: method, headers: headers, body: body)
        if let set = response.headers[.setCookie], let value = Self.cookieValue(set) {
            state.withLock { $0.cookie = value.isEmpty ? nil : value }  // an empty value clears it
        }
        let html = String(buffer: response.body)
        if let range = html.range(of: "data-csrf=\"") {
            let rest = html[range.upperBound...]
            if let end = rest.firstIndex(of: "\"") { state.withLock { $0.csrf = String(rest[..<end]) } }
        }
        return response
    }

    static func cookieValue(_ header: String) -> String? {
        guard header.hasPrefix("petspot_visit=") else { return nil }
        return String(header.dropFirst("petspot_visit=".count).prefix { $0 != ";" })
    }

    /// Taps "Report a found pet" on the welcome page `welcome`: posts its start form as a browser would
    /// (its hidden fields, the cookie if the browser has one).
    @discardableResult
    func tapStart(on welcome: TestResponse, headers: HTTPFields = [:]) async throws -> TestResponse {
        let fields = Self.hiddenFields(welcome.html, form: "action=\"/start\"")
        var headers = headers
        headers[.contentType] = "application/x-www-form-urlencoded"
        return try await send(
            "/start", method: .post, headers: headers, body: ByteBuffer(string: URLEncodedForm.encode(fields)))
    }

    /// The hidden inputs of the first form whose tag contains `form`.
    static func hiddenFields(_ html: String, form: String) -> [(String, String)] {
        guard let start = html.range(of: form), let end = html[start.upperBound...].range(of: "</form>") else {
            return []
        }
        var fields: [(String, String)] = []
        var rest = html[start.upperBound..<end.lowerBound]
        while let input = rest.range(of: "<input type=\"hidden\" name=\"") {
            let afterName = rest[input.upperBound...]
            guard let nameEnd = afterName.firstIndex(of: "\""),
                let valueStart = afterName.range(of: "value=\"")?.upperBound,
                let valueEnd = afterName[valueStart...].firstIndex(of: "\"")
            else { break }
            fields.append((String(afterName[..<nameEnd]), String(afterName[valueStart..<valueEnd])))
            rest = afterName[valueEnd...]
        }
        return fields
    }
}

extension TestResponse {
    var html: String { String(buffer: body) }
}

/// Small valid images of each format, by their headers.
enum Images {
    /// A 2×3 PNG (signature + IHDR).
    static let png: Data = {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13]
        bytes += Array("IHDR".utf8) + [0, 0, 0, 2, 0, 0, 0, 3, 8, 6, 0, 0, 0] + [0, 0, 0, 0]
        bytes += [0, 0, 0, 0] + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
        return Data(bytes + [UInt8](repeating: 0, count: 1000))
    }()
}
