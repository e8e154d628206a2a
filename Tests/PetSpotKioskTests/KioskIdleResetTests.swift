import Foundation
import Hummingbird
import HummingbirdTesting
import MetricsTestKit
import PetSpotKiosk
import PetSpotKioskConfiguration
import PetSpotReport
import Testing

/// A shared screen keeps nothing of the previous visitor.
@Suite("Kiosk idle reset")
struct KioskIdleResetTests {
    @Test func anIdleVisitIsWipedWithItsDraftAndItsPagesSayStillThereFirst() async throws {
        let harness = try await KioskHarness(idleReset: .seconds(120))
        try await harness.run { client in
            let browser = Browser(client)
            try await KioskFlowTests.toDetails(browser)
            try await browser.post("/report/details", [("action", "back"), ("race", "Beagle")])
            let page = try await browser.get("/report/photo")
            // The prompt 20 s before the reset; without JavaScript a refresh leads to /still-there.
            #expect(page.html.contains("data-idle-prompt=\"100\" data-idle-reset=\"120\""))
            #expect(
                page.html.contains(
                    "<noscript><meta http-equiv=\"refresh\" content=\"100;url=/still-there\"></noscript>"))
            harness.clock.advance(.seconds(105))
            let prompt = try await browser.get("/still-there")
            #expect(prompt.html.contains("Still there?") && prompt.html.contains("cleared in 15 seconds"))
            // Looking at the prompt is not activity.
            harness.clock.advance(.seconds(16))
            #expect(await harness.store.sweep() == 1)
            #expect(harness.draftFiles.isEmpty)
            #expect(await harness.store.count == 0)
            // The browser's old pages lead nowhere: a new visit, nothing of the old one.
            let back = try await browser.get("/report/details")
            #expect(back.status == .seeOther && back.headers[.location] == "/")
            let welcome = try await browser.get("/")
            #expect(welcome.html.contains("welcome.startButton.tap") && !welcome.html.contains("Beagle"))
        }
    }

    @Test func stillHereKeepsTheVisit() async throws {
        let harness = try await KioskHarness(idleReset: .seconds(60))
        try await harness.run { client in
            let browser = Browser(client)
            try await KioskFlowTests.toDetails(browser)
            harness.clock.advance(.seconds(50))
            let kept = try await browser.post("/still-there")
            #expect(kept.headers[.location] == "/report/details")
            harness.clock.advance(.seconds(50))
            #expect(await harness.store.sweep() == 0)
            #expect(harness.draftFiles.count == 1)
            harness.clock.advance(.seconds(11))
            #expect(await harness.store.sweep() == 1)
            #expect(harness.draftFiles.isEmpty)
        }
    }

    @Test func aFormFromBeforeTheResetIsRefused() async throws {
        let harness = try await KioskHarness(idleReset: .seconds(30))
        try await harness.run { client in
            let browser = Browser(client)
            try await KioskFlowTests.toDetails(browser)
            let oldToken = browser.csrf
            harness.clock.advance(.seconds(31))
            let stale = try await browser.post(
                "/report/details", [("action", "continue"), ("race", "Beagle")], token: oldToken)
            #expect(stale.status == .forbidden)
            #expect(stale.html.contains("This page has expired"))
            #expect(harness.draftFiles.isEmpty)
        }
    }

    @Test func theSweeperEndsVisitsWithoutAnyRequest() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kiosk-sweep-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = VisitStore(idleReset: .milliseconds(300), draftsBase: directory)
        let visit = await store.open(language: .en)
        try visit.drafts.store(Images.png)
        #expect(FileManager.default.fileExists(atPath: visit.drafts.directory.path))
        let sweeper = IdleSweeper(store: store, interval: .milliseconds(100))
        let task = Task { try await sweeper.run() }
        defer { task.cancel() }
        var waited = 0
        while await store.count > 0, waited < 50 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        #expect(await store.count == 0)
        #expect(!FileManager.default.fileExists(atPath: visit.drafts.directory.path))
    }

    @Test func draftsLeftByAnEarlierRunAreDeletedAtStart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kiosk-leftover-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let leftover = directory.appendingPathComponent("PetSpot/ReportFoundPet/\(UUID().uuidString.lowercased())")
        try FileManager.default.createDirectory(at: leftover, withIntermediateDirectories: true)
        try Images.png.write(to: leftover.appendingPathComponent("photo.png"))
        let store = VisitStore(idleReset: .seconds(120), draftsBase: directory)
        await store.removeLeftoverDrafts()
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
    }

    @Test func theStoreHoldsABoundedNumberOfVisits() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kiosk-bound-\(UUID().uuidString)")
        let store = VisitStore(idleReset: .seconds(120), draftsBase: directory, maximumVisits: 3)
        for _ in 0..<10 { _ = await store.open(language: .en) }
        #expect(await store.count == 3)
    }

    @Test func visitsAndSubmittedReportsAreCountedForTheMetricsFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kiosk-count-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let metrics = TestMetrics()
        let store = VisitStore(idleReset: .seconds(120), draftsBase: directory, metrics: metrics)
        let first = await store.open(language: .en)
        let second = await store.restart(first.id, language: .en)  // cancelled: a new visit, nothing submitted
        _ = await store.restart(second.id, language: .en, reference: "R-1")  // submitted
        #expect(try metrics.expectCounter("petspot_kiosk_visits_total").totalValue == 3)
        #expect(try metrics.expectCounter("petspot_kiosk_reports_submitted_total").totalValue == 1)
    }
}

@Suite("Kiosk languages")
struct KioskLanguageTests {
    @Test func acceptLanguagePicksPolishAndTheSwitchChangesIt() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            let polish = try await browser.get("/", headers: [.acceptLanguage: "pl-PL,pl;q=0.9,en;q=0.5"])
            #expect(polish.html.contains("<html lang=\"pl\">") && polish.html.contains("Znalazłeś zwierzę?"))
            try await browser.post("/start")
            let errors = try await browser.follow(try await browser.post("/report/photo/continue"))
            #expect(
                errors.html.contains("Zdjęcie jest wymagane") && errors.html.contains("Popraw pola zaznaczone poniżej"))
            let switched = try await browser.post("/language", [("lang", "en"), ("return", "/report/photo")])
            #expect(switched.headers[.location] == "/report/photo")
            #expect(try await browser.get("/report/photo").html.contains("Upload a clear photo of the pet you found."))
        }
    }

    @Test func theConfiguredLanguageIsTheDefault() async throws {
        let harness = try await KioskHarness(language: .pl)
        try await harness.run { client in
            let page = try await client.execute(uri: "/", method: .get, headers: [.acceptLanguage: "de-DE"])
            #expect(page.html.contains("Zgłoś znalezione zwierzę"))
        }
    }

    @Test(arguments: [
        ("pl", KioskSettings.Language.pl), ("en-GB,en;q=0.8", .en), ("de, pl;q=0.3", .pl), ("de", .en),
        ("en;q=0.2, pl;q=0.9", .pl), ("pl;q=0", .en), ("", .en),
    ])
    func negotiation(header: String, expected: KioskSettings.Language) {
        #expect(LanguageNegotiation.preferred(acceptLanguage: header, fallback: .en) == expected)
    }

    @Test func everyFieldMessageHasAPolishText() {
        let english = KioskStrings.english
        let polish = KioskStrings.polish
        for message in [
            "Photo is mandatory", "Fill in latitude", "Fill in longitude", "Enter at least 7 digits",
            "Enter a valid email address", "Please select a species", "Latitude must be between -90 and 90",
        ] {
            #expect(english.translate(message) == message)
            #expect(polish.translate(message) != message, "no Polish for \(message)")
        }
    }
}

@Suite("Kiosk forms")
struct KioskFormTests {
    @Test func urlEncodedFormsDecodePlusAndPercent() {
        let fields = URLEncodedForm.parse("a=1&b=x+y%2Bz&c=&=skip&d=%C5%BC%C3%B3%C5%82w")
        #expect(fields == ["a": "1", "b": "x y+z", "c": "", "d": "żółw"])
        #expect(URLEncodedForm.parse(URLEncodedForm.encode([("q", "a b&c=d")])) == ["q": "a b&c=d"])
    }

    @Test func multipartFormsGiveFieldsAndOneFile() throws {
        let body = Array(
            ("--XyZ\r\nContent-Disposition: form-data; name=\"_csrf\"\r\n\r\ntoken\r\n"
                + "--XyZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"a \\\"b\\\".png\"\r\n"
                + "Content-Type: image/png\r\n\r\n\u{1}\u{2}\r\n\u{3}\r\n--XyZ--\r\n").utf8)
        let form = try #require(MultipartForm.parse(body, boundary: "XyZ"))
        #expect(form.fields == ["_csrf": "token"])
        #expect(form.file?.fileName == "a \"b\".png")
        #expect(form.file?.data == Data([1, 2, 13, 10, 3]))
        #expect(MultipartForm.boundary(contentType: "multipart/form-data; boundary=\"XyZ\"") == "XyZ")
        #expect(MultipartForm.boundary(contentType: "text/plain; boundary=XyZ") == nil)
        #expect(MultipartForm.parse(Array("garbage".utf8), boundary: "XyZ") == nil)
    }

    @Test func fieldIdsFollowTheSeedsScheme() {
        #expect(
            FieldView.errorID("animalDescription.latitudeTextField.input")
                == "animalDescription.latitudeTextField.error")
        #expect(
            FieldView.hintID("contactInformation.addressTextArea.input") == "contactInformation.addressTextArea.hint")
    }

    @Test func sizesAreShownInKilobytesOrMegabytes() {
        #expect(PageBuilder.byteSize(1_030) == "1 KB")
        #expect(PageBuilder.byteSize(860_000) == "840 KB")
        #expect(PageBuilder.byteSize(2_500_000) == "2.4 MB")
    }
}
