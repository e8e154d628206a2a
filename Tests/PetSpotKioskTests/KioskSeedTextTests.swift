import Foundation
import Hummingbird
import HummingbirdTesting
import PetSpotKiosk
import PetSpotLocation
import PetSpotReport
import Testing

/// Issue 25 item 8: the seeds' texts and ids where they give one (seed 002's
/// photo step, seed 000's draft rule, seeds 003/004's silent caps).
@Suite("Kiosk seed texts and ids")
struct KioskSeedTextTests {
    @Test func thePhotoStepHasSeed002sTextsAndIds() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            let empty = try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            let html = empty.html
            #expect(html.contains("<h1 id=\"animalPhoto.title\">Add a photo</h1>"))
            #expect(html.contains("<p class=\"lead\">A recent photo is mandatory before you can continue.</p>"))
            #expect(html.contains("id=\"animalPhoto.browse\""))
            #expect(html.contains("id=\"animalPhoto.continue\""))
            #expect(!html.contains(".tap\">Continue") && !html.contains("animalPhoto.continueButton"))
            // The picker's helper is there for the script (shown when the picker closes without a photo).
            #expect(
                html.contains(
                    "id=\"animalPhoto.pickerCancelled.text\" role=\"status\" hidden>Select a photo to continue – you can browse again anytime.<"
                ))

            // Nothing picked (the no-JavaScript upload button with no file): the helper, not an error.
            let none = try await browser.follow(try await browser.upload("/report/photo", fileName: "", data: Data()))
            #expect(
                none.html.contains(
                    "id=\"animalPhoto.pickerCancelled.text\" role=\"status\">Select a photo to continue – you can browse again anytime.<"
                ))
            #expect(none.html.contains("id=\"animalPhoto.fileInput.error\" role=\"alert\" hidden"))

            // A refused photo: its message, and the picker says "Try again".
            let refused = try await browser.follow(
                try await browser.upload("/report/photo", fileName: "a.png", data: Data("text".utf8)))
            #expect(refused.html.contains("id=\"animalPhoto.browse.label\">Try again<"))
            #expect(try await browser.get("/report/photo").html.contains(">Tap to upload a photo<"))  // once

            let confirmed = try await browser.follow(
                try await browser.upload("/report/photo", fileName: "rex.png", data: Images.png))
            #expect(confirmed.html.contains("id=\"animalPhoto.remove\">Remove<"))
            #expect(!confirmed.html.contains("animalPhoto.removeButton"))

            // Polish.
            try await browser.post("/report/photo/remove")
            try await browser.post("/language", [("lang", "pl"), ("return", "/report/photo")])
            let polish = try await browser.follow(try await browser.post("/report/photo/continue"))
            #expect(polish.html.contains(">Dodaj zdjęcie</h1>"))
            #expect(polish.html.contains("Aktualne zdjęcie jest wymagane, aby przejść dalej."))
            #expect(
                polish.html.contains(
                    "<strong class=\"toast-title\">Wymagane zdjęcie</strong> Zanim przejdziesz dalej, dołącz plik JPG, PNG, HEIC, GIF lub WEBP."
                ))
            #expect(
                polish.html.contains("Wybierz zdjęcie, aby przejść dalej – możesz wybrać je ponownie w każdej chwili."))
            let refusedPolish = try await browser.follow(
                try await browser.upload("/report/photo", fileName: "a.png", data: Data("text".utf8)))
            #expect(refusedPolish.html.contains(">Spróbuj ponownie<"))
        }
    }

    @Test func theNewTextsHavePolishTranslations() {
        let english = KioskStrings.english
        let polish = KioskStrings.polish
        for text in [
            \KioskStrings.photoTitle, \.photoBody, \.photoTryAgain, \.photoPickerCancelled, \.photoRequiredTitle,
            \.photoRequiredMessage, \.photoTooLargeFormat, \.alertGoSettings,
        ] {
            #expect(!polish[keyPath: text].isEmpty && polish[keyPath: text] != english[keyPath: text])
        }
        #expect(english.alertGoSettings == "Go Settings")
        #expect(english.photoPickerCancelled.contains(" \u{2013} "))  // the en dash
        // Every message the kiosk can show is translated: PetSpotReport's, the GPS outcome's, and the kiosk's own
        // "at most 11 digits" (SPEC §7: a number is refused beside the field, never cut). The 500-character
        // caps stay silent (seed 004): no "at most 500".
        for message in [
            FieldMessages.photoRequired, FieldMessages.phoneRequired, FieldMessages.emailRequired,
            FieldMessages.latitudeRequired, FieldMessages.longitudeRequired, KioskStrings.phoneTooLong,
            GPSFailure(.locationUnknown).message, GPSFailure(.sourceUnavailable).message,
            GPSFailure(.daemonUnreachable("any")).message, GPSFailure(.promptUnavailable).message,
            GPSFailure(.tooManyClients).message, GPSFailure.invalidCoordinate.message,
            PermissionAlert(status: .denied, client: nil).title,
            PermissionAlert(status: .restricted, client: nil).title,
        ] {
            #expect(polish.messages[message] != nil, "\(message)")
        }
        #expect(KioskStrings.phoneTooLong == "Enter at most 11 digits")
        #expect(!polish.messages.keys.contains { $0.contains("at most 500") })
    }

    /// Seed 000: the draft photo counts only while its file exists: checked before Continue and before submit.
    @Test func aDraftWhoseFileIsGoneIsNoPhotoAtContinueNorAtSubmit() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            try await browser.upload("/report/photo", fileName: "rex.png", data: Images.png)
            try Self.deleteDrafts(harness)
            let stayed = try await browser.post("/report/photo/continue")
            #expect(stayed.headers[.location] == "/report/photo")
            let page = try await browser.get("/report/photo")
            #expect(page.html.contains("Photo is mandatory") && page.html.contains("id=\"animalPhoto.toast\""))
            #expect(!page.html.contains("animalPhoto.confirmationCard"))

            // At submit: everything else entered, the draft file gone on the last step.
            try await KioskFlowTests.toDetails(browser)
            try await browser.post("/report/details", [("action", "continue")] + KioskFlowTests.validDetails)
            try Self.deleteDrafts(harness)
            let submitted = try await browser.post(
                "/report/contact", [("action", "submit"), ("phone", "600123456"), ("email", "anna@example.com")])
            #expect(submitted.headers[.location] == "/report/photo")
            #expect(harness.sink.reports.isEmpty)
            let back = try await browser.get("/report/photo")
            #expect(back.html.contains("Photo is mandatory") && !back.html.contains("animalPhoto.confirmationCard"))
            // A new photo, and what was entered is still there.
            try await browser.upload("/report/photo", fileName: "rex.png", data: Images.png)
            try await browser.post("/report/photo/continue")
            #expect(try await browser.get("/report/details").html.contains("value=\"Beagle\""))
            try await browser.post("/report/details", [("action", "continue")] + KioskFlowTests.validDetails)
            #expect(try await browser.get("/report/contact").html.contains("value=\"600123456\""))
            try await browser.post(
                "/report/contact", [("action", "submit"), ("phone", "600123456"), ("email", "anna@example.com")])
            #expect(harness.sink.reports.count == 1)
        }
    }

    static func deleteDrafts(_ harness: KioskHarness) throws {
        let root = harness.directory.appendingPathComponent("PetSpot/ReportFoundPet")
        for file in harness.draftFiles { try FileManager.default.removeItem(at: root.appendingPathComponent(file)) }
        #expect(harness.draftFiles.isEmpty)
    }

    /// Seed 004's 7-11 digits: a number past 11 digits is never cut (SPEC §7): it stays as typed, through
    /// Back, the language switch and a failed Submit, and Submit refuses it beside the field.
    @Test func aPhoneOverElevenDigitsIsRefusedBesideTheFieldNeverCut() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await KioskFlowTests.toDetails(browser)
            try await browser.post("/report/details", [("action", "continue")] + KioskFlowTests.validDetails)
            let long = String(repeating: "x", count: 700)
            let typed = [("phone", "+380 67 123 4567"), ("caregiverPhone", "600123456789")]
            let page = try await browser.follow(try await browser.post("/report/contact", [("action", "back")] + typed))
            #expect(page.html.contains("Pet details"))
            try await browser.post("/report/details", [("action", "continue")] + KioskFlowTests.validDetails)
            let contact = try await browser.get("/report/contact")
            #expect(
                contact.html.contains("value=\"+380 67 123 4567\"") && contact.html.contains("value=\"600123456789\""))
            let refused = try await browser.post(
                "/report/contact", [("action", "submit"), ("email", "anna@example.com"), ("address", long)] + typed)
            #expect(refused.headers[.location] == "/report/contact")
            #expect(harness.sink.reports.isEmpty)
            let shown = try await browser.get("/report/contact")
            for field in ["phoneTextField", "caregiverPhoneTextField"] {
                #expect(
                    shown.html.contains(
                        "<p class=\"error\" id=\"contactInformation.\(field).error\">Enter at most 11 digits</p>"))
            }
            #expect(
                shown.html.contains("value=\"+380 67 123 4567\"") && shown.html.contains("value=\"600123456789\""))
            // Polish.
            try await browser.post("/report/contact", [("lang", "pl")] + typed)
            try await browser.post("/report/contact", [("action", "submit"), ("email", "anna@example.com")] + typed)
            let polish = try await browser.get("/report/contact")
            #expect(polish.html.contains(">Wpisz najwyżej 11 cyfr</p>"))
            // Seed 004's own message below 7 digits is unchanged.
            let short = try await browser.follow(
                try await browser.post("/report/contact", [("lang", "en"), ("phone", "123456"), ("email", "a@b.pl")]))
            #expect(!short.html.contains("at most"))
            let tooShort = try await browser.follow(
                try await browser.post(
                    "/report/contact", [("action", "submit"), ("phone", "123456"), ("email", "anna@example.com")]))
            #expect(
                tooShort.html.contains(
                    "<p class=\"error\" id=\"contactInformation.phoneTextField.error\">Enter at least 7 digits</p>"))
            // Written as the rule allows, it goes, as typed.
            let submitted = try await browser.post(
                "/report/contact",
                [
                    ("action", "submit"), ("phone", "67 123 4567"), ("email", "anna@example.com"),
                    ("caregiverPhone", "60012345678"), ("address", long),
                ])
            #expect(submitted.headers[.location] == "/report/thanks")
            let report = try #require(harness.sink.reports.first)
            #expect(report.contact.phone == "67 123 4567" && report.contact.caregiverPhone == "60012345678")
            #expect(report.contact.address?.count == 500)
        }
    }

    /// A full disk at submit (SPEC §7): the outbox's words, ask staff; the visitor stays on the step with
    /// everything typed, and nothing is queued.
    @Test func aFullDiskAtSubmitSaysToTellTheStaffAndKeepsWhatWasTyped() async throws {
        let harness = try await KioskHarness(reports: FullDiskSink())
        try await harness.run { client in
            let browser = Browser(client)
            try await KioskFlowTests.toDetails(browser)
            try await browser.post("/report/details", [("action", "continue")] + KioskFlowTests.validDetails)
            let typed = [("phone", "600 123 456"), ("email", "anna@example.com"), ("address", "Łąkowa 1")]
            let refused = try await browser.post("/report/contact", [("action", "submit")] + typed)
            #expect(refused.headers[.location] == "/report/contact")
            let page = try await browser.get("/report/contact")
            #expect(
                page.html.contains(
                    "The station&#39;s storage is full, so the report could not be saved. Please tell the staff."))
            for (_, value) in typed { #expect(page.html.contains(value)) }
            try await browser.post("/report/contact", [("lang", "pl")] + typed)
            try await browser.post("/report/contact", [("action", "submit")] + typed)
            #expect(try await browser.get("/report/contact").html.contains("Powiedz o tym obsłudze."))
        }
    }
}
