import Foundation
import Hummingbird
import HummingbirdTesting
import PetSpotKiosk
import Testing

/// Issue 29 item 1 at the HTML level (the browser test walks it in Chromium): no form of a visit may
/// be saved and restored by the browser's history, and a form post counts only with its visit's token,
/// which arrives before the body.
@Suite("Kiosk forms and the browser's history")
struct KioskFormHistoryTests {
    /// Every form, and every control that could hold a visitor's text, turns form restoration and
    /// autofill off: Chromium restores no state into a control whose autocomplete is off.
    @Test func noFormOfAVisitIsRestoredByTheBrowser() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            var pages = [("welcome", try await browser.get("/").html)]
            pages.append(
                ("photo", try await browser.follow(try await browser.tapStart(on: try await browser.get("/"))).html))
            try await KioskFlowTests.toDetails(browser)
            pages.append(("details", try await browser.get("/report/details").html))
            try await browser.post("/report/details", [("action", "continue")] + KioskFlowTests.validDetails)
            pages.append(("contact", try await browser.get("/report/contact").html))
            pages.append(("still there", try await browser.get("/still-there").html))
            var forms = 0
            for (name, html) in pages {
                for tag in Self.tags(html, "form") {
                    forms += 1
                    #expect(tag.contains(#"autocomplete="off""#), "\(name): \(tag)")
                }
                for kind in ["input", "textarea", "select"] {
                    for tag in Self.tags(html, kind) where tag.contains("autocomplete=") {
                        #expect(tag.contains(#"autocomplete="off""#), "\(name): \(tag)")
                    }
                }
                #expect(!html.contains(#"name="_csrf""#), "\(name): the token is in the form's action, not its body")
            }
            #expect(forms >= 8)
        }
    }

    /// The token in the form's body is not read: only the action's `_csrf` or the script's header count,
    /// and the request is refused before its body is.
    @Test func aTokenInTheBodyIsNotEnough() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await KioskFlowTests.toDetails(browser)
            let answer = try await client.execute(
                uri: "/report/details", method: .post,
                headers: [
                    .contentType: "application/x-www-form-urlencoded", .cookie: "petspot_visit=\(browser.cookie ?? "")",
                ],
                body: ByteBuffer(string: "_csrf=\(browser.csrf)&action=back"))
            #expect(answer.status == .forbidden)
            #expect(String(buffer: answer.body).contains("This page has expired"))
            // The same with the token where the page puts it goes through.
            let moved = try await browser.post("/report/details", [("action", "back")])
            #expect(moved.headers[.location] == "/report/photo")
        }
    }

    /// The opening tags `<kind ...>` in `html`.
    static func tags(_ html: String, _ kind: String) -> [String] {
        var found: [String] = []
        var rest = html[...]
        while let start = rest.range(of: "<\(kind) ") ?? rest.range(of: "<\(kind)>") {
            guard let end = rest[start.lowerBound...].firstIndex(of: ">") else { break }
            found.append(String(rest[start.lowerBound...end]))
            rest = rest[rest.index(after: end)...]
        }
        return found
    }
}
