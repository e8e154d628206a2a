import Foundation
import Hummingbird
import HummingbirdTesting
import InMemoryLogging
import PetSpotKiosk
import PetSpotLocation
import PetSpotReport
import Testing

/// The found-pet flow through the app's routes, in-process.
@Suite("Kiosk flow")
struct KioskFlowTests {
    /// Start → photo uploaded → Continue: the browser is on step 2.
    static func toDetails(_ browser: Browser) async throws {
        try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
        let upload = try await browser.upload("/report/photo", fileName: "rex.png", data: Images.png)
        #expect(upload.status == .seeOther)
        let moved = try await browser.post("/report/photo/continue")
        #expect(moved.headers[.location] == "/report/details")
    }

    static let validDetails: [(String, String)] = [
        ("date", "2026-11-24"), ("species", "dog"), ("race", "Beagle"), ("gender", "male"), ("age", "3"),
        ("chipNumber", "123456789012345"), ("petName", "Rex"), ("latitude", "52.2297"), ("longitude", "21.0122"),
        ("description", "Friendly, red collar"),
    ]

    @Test func theWelcomePageOpensNoVisitAndTheFirstTapOpensOneWithAnUnguessableCookie() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let welcome = try await client.execute(uri: "/", method: .get)
            #expect(welcome.status == .ok)
            #expect(welcome.headers[.setCookie] == nil)
            #expect(welcome.html.contains("id=\"welcome.startButton.tap\""))
            #expect(!welcome.html.contains("name=\"_csrf\""))  // nothing on it can expire
            #expect(harness.store.count == 0)
            var ids: [String] = []
            for _ in 0..<2 {
                let started = try await Browser(client).tapStart(on: welcome)
                #expect(started.status == .seeOther && started.headers[.location] == "/report/photo")
                let cookie = try #require(started.headers[.setCookie])
                #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
                let id = try #require(Browser.cookieValue(cookie))
                #expect(id.count == 43)  // 256 bits, base64url
                ids.append(id)
            }
            #expect(ids[0] != ids[1])
            #expect(harness.store.count == 2)
        }
    }

    @Test func aStartFromAnotherSiteIsRefusedAndOpensNothing() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let welcome = try await client.execute(uri: "/", method: .get)
            for headers: HTTPFields in [
                [.init("Sec-Fetch-Site")!: "cross-site"], [.init("Sec-Fetch-Site")!: "same-site"],
                [.origin: "https://evil.example"], [.origin: "null"],
            ] {
                let refused = try await Browser(client).tapStart(on: welcome, headers: headers)
                #expect(refused.status == .forbidden, "\(headers)")
                #expect(refused.headers[.setCookie] == nil)
            }
            #expect(harness.store.count == 0)
            let ours = try await Browser(client).tapStart(
                on: welcome, headers: [.init("Sec-Fetch-Site")!: "same-origin"])
            #expect(ours.status == .seeOther && ours.headers[.location] == "/report/photo")
        }
    }

    @Test func aStartNeverReplacesAVisitInProgress() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await Self.toDetails(browser)
            let cookie = browser.cookie
            // A second tap on an old welcome page (Back, a double tap) goes back to the visit's step.
            let again = try await browser.tapStart(on: try await client.execute(uri: "/", method: .get))
            #expect(again.headers[.location] == "/report/details")
            #expect(again.headers[.setCookie] == nil && browser.cookie == cookie)
            #expect(harness.draftFiles.count == 1)
            // Loading the welcome page with the visit's cookie goes back to its step too.
            #expect(try await browser.get("/").headers[.location] == "/report/details")
        }
    }

    @Test func everyAnswerIsNoStoreWithAStrictContentSecurityPolicy() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            for response in [
                try await browser.get("/"), try await browser.post("/start"), try await browser.get("/nowhere"),
            ] {
                #expect(response.headers[.cacheControl] == "no-store")
                let policy = try #require(response.headers[.contentSecurityPolicy])
                #expect(policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"))
                #expect(policy.contains("frame-ancestors 'none'"))
            }
            let page = try await browser.get("/")
            #expect(!page.html.contains("<script>") && !page.html.contains(" onclick="))
        }
    }

    @Test func aPostWithoutTheVisitsTokenIsRefusedAndChangesNothing() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            let missing = try await browser.post("/report/photo/continue", token: "")
            let wrong = try await browser.post("/report/photo/continue", token: String(repeating: "A", count: 43))
            #expect(missing.status == .forbidden && wrong.status == .forbidden)
            #expect(wrong.html.contains("This page has expired"))
            // Nothing moved: still the photo step, without the error a Continue would have left.
            let photo = try await browser.get("/report/photo")
            #expect(photo.status == .ok && !photo.html.contains("Photo is mandatory"))
            // Without any visit, a POST other than the start is refused the same way.
            let stranger = try await client.execute(
                uri: "/language", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "lang=pl&return=/"))
            #expect(stranger.status == .forbidden && stranger.headers[.setCookie] == nil)
            // The enhancement script sends the token as a header.
            let ping = try await browser.post("/activity", token: "", headers: [.init("X-CSRF-Token")!: browser.csrf])
            #expect(ping.status == .noContent)
        }
    }

    @Test func continueWithoutAPhotoShowsAToastAndPhotoIsMandatory() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            let page = try await browser.follow(try await browser.post("/report/photo/continue"))
            // Seed 002: the photo step's toast, its id and texts; it clears after 3 s (kiosk-fields.js).
            #expect(
                page.html.contains(
                    "<div class=\"toast\" role=\"alert\" id=\"animalPhoto.toast\" data-dismiss-after=\"3000\"><strong class=\"toast-title\">Photo required</strong> Attach a JPG, PNG, HEIC, GIF or WEBP file before continuing.</div>"
                ))
            #expect(!page.html.contains("reportFound.toast"))
            #expect(page.html.contains("Photo is mandatory"))
            #expect(
                page.html.contains(
                    "aria-invalid=\"true\" aria-describedby=\"animalPhoto.fileInput.hint animalPhoto.fileInput.error\"")
            )
        }
    }

    @Test func aPhotoIsSniffedAndConfirmedAndATextFileIsRefused() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            let refused = try await browser.follow(
                try await browser.upload("/report/photo", fileName: "notes.png", data: Data("just text".utf8)))
            #expect(refused.html.contains("Please choose a JPG, PNG, HEIC, GIF or WEBP photo"))
            #expect(!refused.html.contains("animalPhoto.confirmationCard"))
            #expect(harness.draftFiles.isEmpty)
            let page = try await browser.follow(
                try await browser.upload("/report/photo", fileName: "C:\\Users\\me\\rex.png", data: Images.png))
            #expect(page.html.contains("id=\"animalPhoto.confirmationCard\""))
            #expect(page.html.contains(">rex.png<"))
            #expect(page.html.contains(">1 KB<") && page.html.contains("2 × 3 px"))
            #expect(harness.draftFiles.count == 1)
            let preview = try await browser.get("/report/photo/preview")
            #expect(preview.headers[.contentType] == "image/png")
            let removed = try await browser.follow(try await browser.post("/report/photo/remove"))
            #expect(!removed.html.contains("animalPhoto.confirmationCard"))
            #expect(harness.draftFiles.isEmpty)
        }
    }

    @Test func anUploadOverTheLimitGetsAClearMessage() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            var big = Images.png
            big.append(Data(count: KioskLimits.photoBytes + 1))
            let page = try await browser.follow(
                try await browser.upload("/report/photo", fileName: "big.png", data: big))
            // The station's own bound (SPEC §7), and why.
            #expect(
                page.html.contains(
                    "The photo is too large: this station keeps photos of at most 10 MB until the report is sent"))
            #expect(page.html.contains(">Try again<"))
            #expect(harness.draftFiles.isEmpty)
        }
    }

    @Test func detailsErrorsComeAllAtOnceTiedToTheirFields() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await Self.toDetails(browser)
            let page = try await browser.follow(
                try await browser.post("/report/details", [("action", "continue"), ("date", ""), ("latitude", "91")]))
            let html = page.html
            #expect(html.contains("id=\"reportFound.toast\""))
            for message in [
                "Please select a date", "Please select a species", "Please select a gender",
                "Latitude must be between -90 and 90", "Fill in longitude",
            ] {
                #expect(html.contains(message), "missing \(message)")
            }
            #expect(
                html.contains(
                    "id=\"animalDescription.latitudeTextField.input\" name=\"latitude\" type=\"text\" value=\"91\""))
            #expect(
                html.contains("aria-invalid=\"true\" aria-describedby=\"animalDescription.latitudeTextField.error\""))
            #expect(html.contains("<p class=\"error\" id=\"animalDescription.latitudeTextField.error\">"))
            #expect(html.contains("aria-describedby=\"animalDescription.speciesDropdown.error\""))
        }
    }

    @Test func theGPSButtonFillsBothFieldsFromTheDaemonsFix() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await Self.toDetails(browser)
            let answer = try await browser.post("/report/details", [("action", "gps"), ("species", "cat")])
            #expect(answer.headers[.location] == "/report/details#location")
            let page = try await browser.get("/report/details")
            #expect(page.html.contains("name=\"latitude\" type=\"text\" value=\"52.229700\""))
            #expect(page.html.contains("name=\"longitude\" type=\"text\" value=\"21.012200\""))
            #expect(page.html.contains("GPS capture successful (accuracy ±15 m)"))
            #expect(page.html.contains("value=\"cat\" id=\"animalDescription.species.cat\" selected"))
            // The enhancement script's variant answers JSON.
            let json = try await browser.post(
                "/report/details", [("action", "gps")], headers: [.accept: "application/json"])
            let object = try JSONSerialization.jsonObject(with: Data(json.html.utf8)) as? [String: String]
            #expect(object?["outcome"] == "filled" && object?["latitude"] == "52.229700")
        }
    }

    @Test func reducedAccuracyIsMarkedApproximate() async throws {
        var fix = StubLocation.warsaw
        fix.accuracy = .reduced
        fix.horizontalAccuracy = 3000
        let location = StubLocation(
            state: .success(AuthorizationState(status: .authorized, accuracy: .reduced, decidedBy: .rule)),
            fix: .success(fix))
        let harness = try await KioskHarness(location: location)
        try await harness.run { client in
            let browser = Browser(client)
            try await Self.toDetails(browser)
            let page = try await browser.follow(try await browser.post("/report/details", [("action", "gps")]))
            #expect(page.html.contains("GPS capture successful (accuracy ±3000 m, approximate)"))
        }
    }

    /// The kiosk's account as the daemon would see it: a name and a uid that appear nowhere else.
    static let kioskAccount = ClientIdentity(uid: 4242, gid: 4242, pid: 1, user: "kiosk-acct-7")

    @Test(arguments: [
        (AuthorizationStatus.denied, DecisionOrigin.decision), (.denied, .rule), (.denied, .default),
        (.restricted, .rule),
    ])
    func aRefusedGPSSpeaksToThePublicAndTellsTheAdministrator(
        status: AuthorizationStatus, decidedBy: DecisionOrigin
    ) async throws {
        // Undecided at the tap (`location.get` answers notDetermined): the request's answer names the account
        // and what decided it. (A refusal read from `location.get` itself names neither: the next test.)
        let location = StubLocation(
            state: .success(AuthorizationState(status: status, decidedBy: decidedBy, client: Self.kioskAccount)),
            fix: .failure(.notDetermined))
        let harness = try await KioskHarness(location: location)
        try await harness.run(.live) { client in
            let browser = Browser(client)
            try await Self.toDetails(browser)
            let answer = try await browser.post("/report/details", [("action", "gps"), ("latitude", "1.5")])
            #expect(answer.headers[.location] == "/report/details?alert=open")
            let alert = try await browser.get("/report/details?alert=open")
            #expect(alert.html.contains("<div class=\"modal-backdrop\" id=\"permissionAlert\">"))
            #expect(alert.html.contains(status == .denied ? "Location access denied" : "Location is restricted"))
            #expect(
                alert.html.contains(
                    "This station cannot share its location. Please type the coordinates, or ask a member of staff."))
            // The focus on what the visitor can do (close it and type), not on Go Settings.
            #expect(alert.html.contains("id=\"permissionAlert.cancelButton.tap\" autofocus>Cancel<"))
            #expect(alert.html.contains("id=\"permissionAlert.goSettingsButton.tap\">Go Settings<"))
            #expect(alert.html.contains("value=\"1.5\""))  // fields left as they were
            let settings = try await browser.get("/report/details?alert=settings")
            #expect(settings.html.contains("ask a member of staff for help"))
            let json = try await browser.post(
                "/report/details", [("action", "gps")], headers: [.accept: "application/json"])
            #expect(json.html.contains("\"outcome\":\"alert\""))
            let polish = try await browser.post("/language", [("lang", "pl"), ("return", "/report/details")])
            #expect(polish.headers[.location] == "/report/details")
            try await browser.post("/report/details", [("action", "gps")])
            let polishAlert = try await browser.get("/report/details?alert=settings")
            #expect(polishAlert.html.contains("To stanowisko nie może udostępnić swojej lokalizacji."))
            for page in [answer, alert, settings, json, polishAlert] {
                for secret in [
                    "kiosk-acct-7", "4242", "uid ", "sudo", "petspot-location authorization", "systemctl", "/etc/",
                    ".toml", "[[policy.rules]]",
                ] {
                    #expect(!page.html.contains(secret), "a visitor's page shows \(secret)")
                }
            }
            let cancelled = try await browser.get("/report/details")
            #expect(cancelled.html.contains("id=\"permissionAlert\" hidden"))

            // The administrator's details: in the log, and on /admin/status.
            let remedy =
                status == .denied && decidedBy == .decision
                ? "sudo petspot-location authorization reset --user kiosk-acct-7"
                : "sudo systemctl reload petspot-locationd"
            let logged = harness.logs.entries.map { "\($0.message)" }.filter { $0.contains("GPS button refused") }
            #expect(logged.count == 3)
            #expect(
                logged.first.map {
                    $0.contains("location \(status.rawValue) for user kiosk-acct-7 (uid 4242)") && $0.contains(remedy)
                } == true, "\(logged)")
            let admin = try await client.execute(uri: "/admin/status", method: .get)
            #expect(admin.status == .ok)
            #expect(admin.html.contains("id=\"admin.locationRefusals\">3<"))
            #expect(admin.html.contains("user kiosk-acct-7 (uid 4242)"))
            #expect(admin.html.contains("id=\"admin.locationRemedy\">"))
            #expect(admin.html.contains(remedy))
        }
    }

    /// One GPS tap is one `location.get` (no `authorization.status` first); `authorization.request` only
    /// after a `notDetermined` answer, then the fix.
    @Test(arguments: [
        (LocationError?.none, ["location.get"]), (.denied, ["location.get"]), (.restricted, ["location.get"]),
        (.locationUnknown, ["location.get"]),
        (.notDetermined, ["location.get", "authorization.request"]),
    ])
    func oneGPSTapIsOneLocationGet(refusal: LocationError?, calls: [String]) async throws {
        let answer: Result<LocationFix, LocationError> = refusal.map { .failure($0) } ?? .success(StubLocation.warsaw)
        let location = CountingLocation(
            StubLocation(state: .success(AuthorizationState(status: .denied, decidedBy: .decision)), fix: answer))
        let harness = try await KioskHarness(location: location)
        try await harness.run { client in
            let browser = Browser(client)
            try await Self.toDetails(browser)
            try await browser.post("/report/details", [("action", "gps")], headers: [.accept: "application/json"])
            #expect(location.calls == calls)
        }
    }

    /// The daemon refused without saying whom it saw: the administrator is told the kiosk's own account.
    @Test func aRefusalWithoutTheDaemonsViewNamesTheKiosksOwnAccountToTheAdministratorOnly() async throws {
        let location = StubLocation(state: .failure(.denied), fix: .failure(.denied))
        let harness = try await KioskHarness(location: location)
        try await harness.run(.live) { client in
            let browser = Browser(client)
            try await Self.toDetails(browser)
            try await browser.post("/report/details", [("action", "gps")])
            let page = try await browser.get("/report/details?alert=settings")
            #expect(page.html.contains("Location access denied"))
            let uid = String(getuid())
            #expect(!page.html.contains("uid \(uid)") && !page.html.contains("sudo"))
            let admin = try await client.execute(uri: "/admin/status", method: .get)
            #expect(admin.html.contains("(uid \(uid)) (this kiosk process; the daemon did not say)"), "\(admin.html)")
        }
    }

    @Test(arguments: [
        (LocationError.daemonUnreachable("gone"), "The location service is not running."),
        (LocationError.locationUnknown, "Your location could not be determined."),
        (LocationError.sourceUnavailable, "The GPS receiver is not available right now."),
    ])
    func aFailedGPSLeavesTheFieldsAndSaysWhy(error: LocationError, message: String) async throws {
        let location = StubLocation(
            state: error == .locationUnknown || error == .sourceUnavailable
                ? .success(AuthorizationState(status: .authorized, decidedBy: .rule)) : .failure(error),
            fix: .failure(error))
        let harness = try await KioskHarness(location: location)
        try await harness.run { client in
            let browser = Browser(client)
            try await Self.toDetails(browser)
            let page = try await browser.follow(
                try await browser.post("/report/details", [("action", "gps"), ("latitude", "50"), ("longitude", "")]))
            #expect(page.html.contains(message))
            #expect(page.html.contains("name=\"latitude\" type=\"text\" value=\"50\""))
            #expect(!page.html.contains("GPS capture successful"))
        }
    }

    @Test func backKeepsWhatWasEntered() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await Self.toDetails(browser)
            let back = try await browser.post("/report/details", [("action", "back")] + Self.validDetails)
            #expect(back.headers[.location] == "/report/photo")
            let photo = try await browser.get("/report/photo")
            #expect(photo.html.contains("animalPhoto.confirmationCard"))
            try await browser.post("/report/photo/continue")
            let details = try await browser.get("/report/details")
            #expect(details.html.contains("value=\"Beagle\"") && details.html.contains("value=\"52.2297\""))
            #expect(details.html.contains("value=\"12345-67890-12345\""))  // chip number shown grouped
            #expect(details.html.contains("value=\"male\" id=\"animalDescription.genderMale.tap\" checked"))
            try await browser.post("/report/details", [("action", "continue")] + Self.validDetails)
            try await browser.post("/report/contact", [("action", "back"), ("phone", "600123456")])
            try await browser.post("/report/details", [("action", "continue")] + Self.validDetails)
            #expect(try await browser.get("/report/contact").html.contains("value=\"600123456\""))
        }
    }

    @Test func contactErrorsUseTheSeedTexts() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await Self.toDetails(browser)
            try await browser.post("/report/details", [("action", "continue")] + Self.validDetails)
            let page = try await browser.follow(
                try await browser.post(
                    "/report/contact", [("phone", "12"), ("email", "anna@"), ("caregiverPhone", "1")]))
            #expect(page.html.contains("Enter at least 7 digits"))
            #expect(page.html.contains("Enter a valid email address"))
            #expect(page.html.contains("id=\"contactInformation.caregiverPhoneTextField.error\""))
            #expect(harness.sink.reports.isEmpty)
        }
    }

    @Test func submitQueuesTheReportThanksWithAReferenceAndStartsOver() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await Self.toDetails(browser)
            try await browser.post("/report/details", [("action", "gps")])
            var details = Self.validDetails.filter { $0.0 != "latitude" && $0.0 != "longitude" }
            details += [("latitude", "52.229700"), ("longitude", "21.012200")]
            try await browser.post("/report/details", [("action", "continue")] + details)
            let oldCookie = try #require(browser.cookie)
            let long = String(repeating: "a", count: 600)
            let submitted = try await browser.post(
                "/report/contact",
                [("action", "submit"), ("phone", "+48 600 123 456"), ("email", "anna@example.com"), ("address", long)])
            #expect(submitted.headers[.location] == "/report/thanks")
            #expect(browser.cookie != oldCookie)  // the next person gets a new visit
            let report = try #require(harness.sink.reports.first)
            #expect(report.details.latitude == 52.2297 && report.details.longitude == 21.0122)
            #expect(report.details.chipNumber == "123456789012345")
            #expect(report.contact.address?.count == 500)  // hard cap, no error
            let thanks = try await browser.get("/report/thanks")
            let reference = "PS-" + report.id.uuidString.prefix(8).uppercased()
            #expect(thanks.html.contains("id=\"thankYou.reference.label\">\(reference)<"))
            #expect(harness.draftFiles.isEmpty)
            #expect(harness.store.count == 1)
            // The old visit's cookie shows nothing of it.
            let stale = try await client.execute(
                uri: "/report/contact", method: .get, headers: [.cookie: "petspot_visit=\(oldCookie)"])
            #expect(stale.status == .seeOther && stale.headers[.location] == "/")
            #expect(try await browser.follow(try await browser.get("/")).html.contains("welcome.startButton.tap"))
        }
    }

    @Test func cancelDeletesTheDraftAtOnce() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await Self.toDetails(browser)
            #expect(harness.draftFiles.count == 1)
            let cancelled = try await browser.post("/report/cancel")
            #expect(cancelled.headers[.location] == "/")
            #expect(harness.draftFiles.isEmpty)
        }
    }
}
