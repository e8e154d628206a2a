import Foundation
import Hummingbird
import HummingbirdTesting
import PetSpotKiosk
import PetSpotReport
import Testing

/// The text areas' counter near the cap (SPEC §7's 500 characters), and the enhancement scripts: one file a
/// feature, every page loads each, and each is served.
@Suite("Kiosk counter and scripts")
struct KioskCounterAndScriptTests {
    @Test(arguments: [
        (0, "0/500", false), (449, "449/500", false), (450, "450/500 – 50 characters left", true),
        (500, "500/500 – 0 characters left", true),
    ])
    func theCounterWarnsFiftyCharactersBeforeTheCap(count: Int, text: String, warns: Bool) {
        let counter = PageBuilder.counter(count, limit: FieldMessages.maximumTextLength, .english)
        #expect(counter.text == text && counter.warns == warns)
    }

    @Test func theCounterSpeaksPolish() {
        #expect(PageBuilder.counter(480, limit: 500, .polish).text == "480/500 – pozostało znaków: 20")
    }

    /// The server's page: the warning class and the words the script uses as it counts.
    @Test func aDescriptionNearTheCapComesBackWarned() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await KioskFlowTests.toDetails(browser)
            let long = String(repeating: "a", count: 470)
            try await browser.post("/report/details", [("lang", "en"), ("description", long)])
            let page = try await browser.get("/report/details")
            #expect(
                page.html.contains("<p class=\"hint counter warn\" id=\"animalDescription.descriptionTextArea.hint\""))
            #expect(page.html.contains(">470/500 – 30 characters left</p>"))
            #expect(page.html.contains("data-left-format=\"{count}/{max} – {n} characters left\""))
        }
    }

    @Test func everyPageLoadsEachScriptInOrderAndEachIsServed() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            let welcome = try await browser.get("/")
            let tags = PageRenderer.scripts.map { "<script src=\"/static/\($0)\" defer></script>" }
            #expect(welcome.html.contains(tags.joined(separator: "\n")), "\(welcome.html.prefix(800))")
            #expect(PageRenderer.scripts.first == "kiosk.js" && Set(PageRenderer.scripts).count == 7)
            for name in PageRenderer.scripts {
                let script = try await browser.get("/static/\(name)")
                #expect(script.status == .ok && script.headers[.contentType] == "text/javascript; charset=utf-8")
                #expect(script.html.count > 100 && script.html.components(separatedBy: "\n").count <= 400)
            }
        }
    }
}
