import FoundationEssentials
import Hummingbird
import PetSpotKioskConfiguration

import Glibc

/// The kiosk's static files (style sheet, script), loaded once at start,
/// and the HTML answers built from the pages (``PageHTML``).
public struct PageRenderer: Sendable {
    /// `/static/NAME` → bytes and content type.
    let staticFiles: [String: (bytes: ByteBuffer, contentType: String)]

    /// Loads the static files: installed ones (`<executable's directory>/../share/petspot-kiosk`,
    /// e.g. `/usr/share/petspot-kiosk` from the package) when present, else the source tree's
    /// `Sources/PetSpotKiosk/Resources` (a build tree, the tests).
    /// - Throws: when a file is missing.
    public static func load() async throws -> PageRenderer {
        if let installed = installedDirectory() {
            return try await load(directory: installed)
        }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Resources", isDirectory: true)
        return try await load(directory: source)
    }

    /// `<directory of the running executable>/../share/petspot-kiosk` when it holds the static files.
    static func installedDirectory() -> URL? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        let executable = String(decoding: buffer[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let directory = URL(fileURLWithPath: executable).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/petspot-kiosk", isDirectory: true)
        let marker = directory.appendingPathComponent("static/kiosk.css").path
        return FileManager.default.fileExists(atPath: marker) ? directory : nil
    }

    /// The enhancement scripts, one a feature, in the order every page loads them (`defer` keeps it):
    /// `kiosk.js` first, with what the others share.
    public static let scripts = [
        "kiosk.js", "kiosk-display.js", "kiosk-idle.js", "kiosk-fields.js", "kiosk-gps.js", "kiosk-photo.js",
        "kiosk-keyboard.js",
    ]

    /// Loads the static files from `directory/static`.
    public static func load(directory: URL) async throws -> PageRenderer {
        var loaded: [String: (ByteBuffer, String)] = [:]
        let files =
            [("kiosk.css", "text/css; charset=utf-8")]
            + scripts.map { ($0, "text/javascript; charset=utf-8") }
        for (name, type) in files {
            let path = directory.appendingPathComponent("static/\(name)").path
            guard let data = FileManager.default.contents(atPath: path) else {
                throw KioskResourceError(detail: "cannot read \(path)")
            }
            loaded[name] = (ByteBuffer(bytes: data), type)
        }
        return PageRenderer(staticFiles: loaded)
    }

    /// The page as HTML.
    public func html(_ page: PageView) -> String {
        PageHTML.page(page).text
    }

    /// The page as an answer.
    public func response(_ page: PageView, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: html(page))))
    }

    /// A static file, or 404.
    public func staticFile(_ name: String) -> Response {
        guard let file = staticFiles[name] else { return Response(status: .notFound) }
        return Response(status: .ok, headers: [.contentType: file.contentType], body: .init(byteBuffer: file.bytes))
    }

    /// 403 "This page has expired": a POST whose token does not match or
    /// whose visit has ended (a page from before an idle reset), or another
    /// site's form. The page holds no token: it only leads to the welcome page.
    public func expired(language: KioskSettings.Language) -> Response {
        let t = KioskStrings.of(language)
        var page = PageView(t: t, title: t.expiredTitle, csrf: "", path: "/")
        page.languageByLink = true
        page.expired = true
        return response(page, status: .forbidden)
    }
}

/// A resource of the kiosk could not be loaded.
public struct KioskResourceError: Error, CustomStringConvertible {
    public var detail: String
    public var description: String { "petspot-kiosk: \(detail)" }
}
