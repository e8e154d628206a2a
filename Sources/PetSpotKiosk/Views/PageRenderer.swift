import Foundation
import Hummingbird
import Mustache
import PetSpotKioskConfiguration

/// The page templates and static files, loaded once at start from the
/// module's resources, and the HTML answers built from them.
public struct PageRenderer: Sendable {
    /// The templates (`Resources/templates/*.mustache`).
    public let library: MustacheLibrary
    /// `/static/NAME` → bytes and content type.
    let staticFiles: [String: (bytes: ByteBuffer, contentType: String)]

    /// Loads the templates and static files: installed ones
    /// (`<executable's directory>/../share/petspot-kiosk`, e.g. `/usr/share/petspot-kiosk`
    /// from the package) when present, else the module's resources (a build tree).
    /// - Throws: when a template does not parse or a resource is missing.
    public static func load() async throws -> PageRenderer {
        let installed = Bundle.main.executableURL?.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("share/petspot-kiosk", isDirectory: true)
        if let installed,
            FileManager.default.fileExists(atPath: installed.appendingPathComponent("templates/page.mustache").path)
        {
            return try await load(directory: installed)
        }
        guard let root = Bundle.module.url(forResource: "Resources", withExtension: nil) else {
            throw KioskResourceError(detail: "the module's resources are missing")
        }
        return try await load(directory: root)
    }

    /// Loads templates from `directory/templates` and static files from `directory/static`.
    public static func load(directory: URL) async throws -> PageRenderer {
        let library = try await MustacheLibrary(directory: directory.appendingPathComponent("templates").path)
        guard library.getTemplate(named: "page") != nil else {
            throw KioskResourceError(detail: "no page template in \(directory.path)/templates")
        }
        var files: [String: (ByteBuffer, String)] = [:]
        for (name, type) in [
            ("kiosk.css", "text/css; charset=utf-8"), ("kiosk.js", "text/javascript; charset=utf-8"),
        ] {
            let data = try Data(contentsOf: directory.appendingPathComponent("static/\(name)"))
            files[name] = (ByteBuffer(bytes: data), type)
        }
        return PageRenderer(library: library, staticFiles: files)
    }

    /// The page as HTML.
    public func html(_ page: PageView) -> String {
        library.render(page, withTemplate: "page") ?? ""
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
