import Foundation
import Hummingbird
import HummingbirdTesting
import PetSpotKiosk
import PetSpotKioskConfiguration
import Testing

/// SPEC §7 (accessibility, the photo): the "larger text / higher contrast"
/// toggle holds for the visit and ends with it; `photo_sources` decides
/// whether a public screen ever shows a file chooser.
@Suite("Kiosk display toggle and photo sources")
struct KioskDisplayTests {
    static func isLarge(_ page: TestResponse) -> Bool { page.html.contains("<html lang=\"en\" class=\"large\">") }

    @Test func largerTextHoldsForTheVisitAndEndsWithIt() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            let photo = try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            #expect(!Self.isLarge(photo))
            #expect(photo.html.contains("id=\"display.largeText.tap\" class=\"lang display\" aria-pressed=\"false\""))
            let toggled = try await browser.post("/display", [("display", "large"), ("return", "/report/photo")])
            #expect(toggled.status == .seeOther && toggled.headers[.location] == "/report/photo")
            let large = try await browser.get("/report/photo")
            #expect(Self.isLarge(large))
            #expect(
                large.html.contains(
                    "value=\"standard\" id=\"display.largeText.tap\" class=\"lang display\" aria-pressed=\"true\""))
            // Every later page of the visit.
            try await browser.upload("/report/photo", fileName: "rex.png", data: Images.png)
            try await browser.post("/report/photo/continue")
            #expect(Self.isLarge(try await browser.get("/report/details")))
            // Cancel ends the visit: the next person starts with the standard display.
            let welcome = try await browser.follow(try await browser.post("/report/cancel"))
            #expect(!Self.isLarge(welcome))
            let next = try await browser.follow(try await browser.tapStart(on: welcome))
            #expect(next.html.contains("id=\"animalPhoto.title\"") && !Self.isLarge(next))
        }
    }

    @Test func theScriptSwitchesInPlace() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            let answer = try await browser.post(
                "/display", [("display", "large")], headers: [.accept: "application/json"])
            #expect(answer.status == .ok && answer.html == #"{"display":"large"}"#)
            #expect(Self.isLarge(try await browser.get("/report/photo")))
            let back = try await browser.post(
                "/display", [("display", "standard")], headers: [.accept: "application/json"])
            #expect(back.html == #"{"display":"standard"}"#)
            #expect(!Self.isLarge(try await browser.get("/report/photo")))
        }
    }

    @Test func anotherPagesTokenChangesNothing() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            let refused = try await browser.post("/display", [("display", "large")], token: "forged")
            #expect(refused.status == .forbidden)
            #expect(!Self.isLarge(try await browser.get("/report/photo")))
        }
    }

    @Test func theWelcomeScreensChoiceStartsTheVisit() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            let welcome = try await browser.get("/?display=large")
            #expect(Self.isLarge(welcome) && browser.cookie == nil)
            // The language links keep it, and the screen goes back to standard for the next person.
            #expect(welcome.html.contains("<input type=\"hidden\" name=\"display\" value=\"large\">"))
            #expect(welcome.html.contains("data-home-after="))
            let photo = try await browser.follow(try await browser.tapStart(on: welcome))
            #expect(Self.isLarge(photo))
        }
    }

    @Test func theDefaultPhotoSourceIsTheCameraAlone() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            let photo = try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            #expect(photo.html.contains("id=\"animalPhoto.camera\""))
            #expect(photo.html.contains("id=\"animalPhoto.capture\""))
            // The chooser exists only for a browser without JavaScript (which has no camera view either).
            #expect(photo.html.contains("<div class=\"file-source nojs-only\">"))
        }
    }

    @Test func cameraAndFileShowsBoth() async throws {
        let harness = try await KioskHarness(photoSources: [.camera, .file])
        try await harness.run { client in
            let browser = Browser(client)
            let photo = try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            #expect(photo.html.contains("id=\"animalPhoto.camera\""))
            #expect(photo.html.contains("<div class=\"file-source\">"))
            #expect(photo.html.contains("id=\"animalPhoto.browse\""))
        }
    }

    @Test func fileAloneHasNoCamera() async throws {
        let harness = try await KioskHarness(photoSources: [.file])
        try await harness.run { client in
            let browser = Browser(client)
            let photo = try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            #expect(!photo.html.contains("id=\"animalPhoto.camera\""))
            #expect(photo.html.contains("<div class=\"file-source\">"))
        }
    }
}
