import Foundation
import Hummingbird
import HummingbirdTesting
import MetricsTestKit
import PetSpotKiosk
import PetSpotKioskConfiguration
import PetSpotPhotoCleaning
import PetSpotReport
import Synchronization
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
            #expect(harness.store.sweep() == 1)
            #expect(harness.draftFiles.isEmpty)
            #expect(harness.store.count == 0)
            // The browser's old pages lead nowhere: a new visit, nothing of the old one.
            let back = try await browser.get("/report/details")
            #expect(back.status == .seeOther && back.headers[.location] == "/")
            let welcome = try await browser.get("/")
            #expect(welcome.html.contains("welcome.startButton.tap") && !welcome.html.contains("Beagle"))
        }
    }

    /// Idling on the welcome screen is the station's normal state: the tap that follows, however late, starts
    /// a visit (the visit starts at the tap, not at the page load).
    @Test func theWelcomeScreenWorksHoweverLongItSat() async throws {
        let harness = try await KioskHarness(idleReset: .seconds(30))
        try await harness.run { client in
            let browser = Browser(client)
            let welcome = try await browser.get("/")
            #expect(welcome.html.contains("id=\"welcome.startButton.tap\""))
            // The idle reset passes, several times over, and the sweeper runs each time.
            for _ in 0..<4 {
                harness.clock.advance(.seconds(31))
                harness.store.sweep()
            }
            #expect(harness.store.count == 0)
            let tapped = try await browser.tapStart(on: welcome)
            #expect(tapped.status == .seeOther && tapped.headers[.location] == "/report/photo")
            #expect(!tapped.html.contains("This page has expired"))
            let photo = try await browser.follow(tapped)
            #expect(photo.status == .ok)
            #expect(photo.html.contains("id=\"reportFound.progress.label\">Step 1 of 3<"))
            #expect(photo.html.contains("data-idle-reset=\"30\""))  // the visit's own idle time starts now
            // And the flow goes on from there.
            let upload = try await browser.upload("/report/photo", fileName: "rex.png", data: Images.png)
            #expect(upload.headers[.location] == "/report/photo")
            #expect(try await browser.post("/report/photo/continue").headers[.location] == "/report/details")
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
            #expect(harness.store.sweep() == 0)
            #expect(harness.draftFiles.count == 1)
            harness.clock.advance(.seconds(11))
            #expect(harness.store.sweep() == 1)
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
        let visit = try #require(store.open(language: .en))
        try visit.drafts.store(Images.png)
        #expect(FileManager.default.fileExists(atPath: visit.drafts.directory.path))
        let sweeper = IdleSweeper(store: store, interval: .milliseconds(100))
        let task = Task { try await sweeper.run() }
        defer { task.cancel() }
        var waited = 0
        while store.count > 0, waited < 50 {
            try await Task.sleep(for: .milliseconds(100))
            waited += 1
        }
        #expect(store.count == 0)
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
        store.removeLeftoverDrafts()
        #expect(!FileManager.default.fileExists(atPath: leftover.path))
    }

    /// The station is idle when its last open visit ends, however it ends
    /// (a submit, a cancel, the idle reset): then, and only then, the store
    /// says so, for the program to release what the visits made resident.
    @Test func theStoreSaysWhenTheLastVisitEnds() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kiosk-idle-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let idled = Mutex(0)
        let store = VisitStore(
            idleReset: .seconds(120), draftsBase: directory, whenIdle: { idled.withLock { $0 += 1 } })
        let first = try #require(store.open(language: .en))
        let second = try #require(store.open(language: .en))
        store.end(first.id, reason: "cancel")
        #expect(idled.withLock { $0 } == 0, "a visit is still open")
        store.end(second.id, reason: "cancel")
        #expect(idled.withLock { $0 } == 1)
        store.end(second.id, reason: "cancel")
        #expect(idled.withLock { $0 } == 1, "ending a visit that is not open changes nothing")
        // A submit ends the visit (idle for a moment) before the thank-you visit opens.
        let third = try #require(store.open(language: .en))
        _ = store.finish(third.id, language: .en, reference: "PS-1")
        #expect(idled.withLock { $0 } == 2)
    }

    @Test func theStoreHoldsABoundedNumberOfVisits() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kiosk-bound-\(UUID().uuidString)")
        let store = VisitStore(idleReset: .seconds(120), draftsBase: directory, maximumVisits: 3)
        for _ in 0..<10 { _ = store.open(language: .en) }
        #expect(store.count == 3)
    }

    /// Opening a visit (a start tap, wherever it comes from) never ends one of a visitor who is mid-report.
    @Test func aVisitorMidReportIsNeverEndedToMakeRoom() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kiosk-bound-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let store = VisitStore(
            idleReset: .seconds(120), draftsBase: directory, maximumVisits: 2, clock: clock.kioskClock)
        let reporting = try #require(store.open(language: .en))
        try reporting.drafts.store(Images.png)
        store.update(reporting.id) { $0.photoFileName = "rex.png" }
        #expect(store.visit(reporting.id)?.hasInput == true)
        clock.advance(.seconds(60))  // the reporter is now the least recently active
        for _ in 0..<10 { #expect(store.open(language: .en) != nil) }
        #expect(store.visit(reporting.id) != nil)
        #expect(FileManager.default.fileExists(atPath: reporting.drafts.directory.path))
        // Full of visitors with input: nothing more is opened, nobody is ended.
        let other = try #require(store.open(language: .en))
        store.update(other.id) { $0.photoFileName = "cat.png" }
        #expect(store.open(language: .en) == nil)
        #expect(store.visit(reporting.id) != nil)
        #expect(store.visit(other.id) != nil)
        // An idle one makes room.
        clock.advance(.seconds(121))
        #expect(store.open(language: .en) != nil)
    }

    @Test func aFullStationSaysBusyAndEndsNobody() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            var reporters: [Browser] = []
            let maximum = harness.store.maximumVisits
            for _ in 0..<maximum {
                let browser = Browser(client)
                try await KioskFlowTests.toDetails(browser)
                reporters.append(browser)
            }
            let welcome = try await client.execute(uri: "/", method: .get)
            let busy = try await Browser(client).tapStart(on: welcome)
            #expect(busy.status == .serviceUnavailable && busy.headers[.setCookie] == nil)
            #expect(busy.html.contains("The station is busy right now."))
            #expect(harness.store.count == maximum)
            for reporter in reporters {
                #expect(try await reporter.get("/report/details").status == .ok)
            }
        }
    }

    @Test func visitsAndSubmittedReportsAreCountedForTheMetricsFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "kiosk-count-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let metrics = TestMetrics()
        let store = VisitStore(idleReset: .seconds(120), draftsBase: directory, metrics: metrics)
        let first = try #require(store.open(language: .en))
        store.end(first.id, reason: "cancelled")  // nothing submitted
        let second = try #require(store.open(language: .en))
        // Submitted: the thank-you page's holder is nobody's visit.
        #expect(store.finish(second.id, language: .en, reference: "R-1")?.submittedReference == "R-1")
        #expect(try metrics.expectCounter("petspot_kiosk_visits_total").totalValue == 2)
        #expect(try metrics.expectCounter("petspot_kiosk_reports_submitted_total").totalValue == 1)
    }
}

@Suite("Kiosk languages")
struct KioskLanguageTests {
    @Test func thePolishStationSpeaksPolishAndTheSwitchChangesIt() async throws {
        let harness = try await KioskHarness(language: .pl)
        try await harness.run { client in
            let browser = Browser(client)
            let polish = try await browser.get("/", headers: [.acceptLanguage: "en-GB,en;q=0.9"])
            #expect(polish.html.contains("<html lang=\"pl\">") && polish.html.contains("Znalazłeś zwierzę?"))
            try await browser.follow(try await browser.tapStart(on: polish))
            let errors = try await browser.follow(try await browser.post("/report/photo/continue"))
            #expect(
                errors.html.contains("Zdjęcie jest wymagane") && errors.html.contains("Wymagane zdjęcie")
                    && errors.html.contains("Zanim przejdziesz dalej, dołącz plik JPG, PNG, HEIC, GIF lub WEBP."))
            let switched = try await browser.post("/language", [("lang", "en"), ("return", "/report/photo")])
            #expect(switched.headers[.location] == "/report/photo")
            #expect(
                try await browser.get("/report/photo").html.contains(
                    "A recent photo is mandatory before you can continue."))
        }
    }

    /// The previous visitor switched language, then cancelled or walked away: the next visit starts in the
    /// station's configured language, not theirs.
    @Test(arguments: [
        (KioskSettings.Language.en, KioskSettings.Language.pl, true), (.en, .pl, false), (.pl, .en, true),
        (.pl, .en, false),
    ])
    func aNewVisitStartsInTheConfiguredLanguage(
        configured: KioskSettings.Language, switched: KioskSettings.Language, cancelled: Bool
    ) async throws {
        let harness = try await KioskHarness(idleReset: .seconds(30), language: configured)
        try await harness.run { client in
            let previous = Browser(client)
            try await KioskFlowTests.toDetails(previous)
            try await previous.post("/language", [("lang", switched.rawValue), ("return", "/report/details")])
            let switchedPage = try await previous.get("/report/details")
            #expect(switchedPage.html.contains("<html lang=\"\(switched.rawValue)\">"))
            if cancelled {
                #expect(try await previous.post("/report/cancel").headers[.location] == "/")
            } else {
                harness.clock.advance(.seconds(31))
                #expect(harness.store.sweep() == 1)
            }
            // The same browser, as the next person finds it.
            let welcome = try await previous.get("/")
            #expect(welcome.html.contains("<html lang=\"\(configured.rawValue)\">"))
            #expect(welcome.html.contains(KioskStrings.of(configured).welcomeTitle))
            let photo = try await previous.follow(try await previous.tapStart(on: welcome))
            #expect(photo.html.contains("<html lang=\"\(configured.rawValue)\">"))
            #expect(photo.html.contains(KioskStrings.of(configured).photoBody))
        }
    }

    /// The welcome page's language buttons need no visit; the visit starts in the chosen language, and the
    /// page goes back to the station's language after the idle time for the next person.
    @Test func theWelcomePagesLanguageSwitchNeedsNoVisit() async throws {
        let harness = try await KioskHarness(idleReset: .seconds(45))
        try await harness.run { client in
            let browser = Browser(client)
            let english = try await browser.get("/")
            #expect(english.html.contains("<form autocomplete=\"off\" method=\"get\" action=\"/\" class=\"languages\""))
            #expect(!english.html.contains("http-equiv=\"refresh\""))
            let polish = try await browser.get("/?lang=pl")
            #expect(polish.headers[.setCookie] == nil && polish.html.contains("<html lang=\"pl\">"))
            #expect(polish.html.contains("<noscript><meta http-equiv=\"refresh\" content=\"45;url=/\"></noscript>"))
            #expect(polish.html.contains(" data-home-after=\"45\""))
            let photo = try await browser.follow(try await browser.tapStart(on: polish))
            #expect(photo.html.contains("<html lang=\"pl\">"))
        }
    }

    @Test func theConfiguredLanguageIsTheDefault() async throws {
        let harness = try await KioskHarness(language: .pl)
        try await harness.run { client in
            let page = try await client.execute(uri: "/", method: .get, headers: [.acceptLanguage: "de-DE"])
            #expect(page.html.contains("Zgłoś znalezione zwierzę"))
        }
    }

    /// The browser's `Accept-Language` never chooses: an English station shows English to a Polish browser.
    @Test func theBrowsersLanguageDoesNotChooseTheVisitsLanguage() async throws {
        let harness = try await KioskHarness(language: .en)
        try await harness.run { client in
            let browser = Browser(client)
            let welcome = try await browser.get("/", headers: [.acceptLanguage: "pl-PL,pl;q=0.9"])
            #expect(welcome.html.contains("<html lang=\"en\">"))
            let photo = try await browser.follow(
                try await browser.tapStart(on: welcome, headers: [.acceptLanguage: "pl-PL,pl;q=0.9"]))
            #expect(photo.html.contains("<html lang=\"en\">") && photo.html.contains("Add a photo"))
        }
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
