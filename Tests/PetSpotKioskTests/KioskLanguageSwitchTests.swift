import Foundation
import Hummingbird
import HummingbirdTesting
import PetSpotKiosk
import PetSpotReport
import Testing

/// Issue 25 item 4: switching language keeps every entered value on every
/// step, the photo included. The language buttons are submit buttons of the
/// step's form (`form=` attribute, `name=lang`): what was typed is saved
/// without being checked and the same step comes back in the new language,
/// without JavaScript too.
@Suite("Kiosk language switch")
struct KioskLanguageSwitchTests {
    /// Every details field, filled (not all of it valid: the switch checks nothing).
    static let details: [(String, String)] = [
        ("date", "2026-11-20"), ("species", "rabbit"), ("race", "Lop"), ("gender", "female"), ("age", "2"),
        ("chipNumber", "98765432101234"), ("petName", "Łatka"), ("latitude", "52,25"), ("longitude", "-1.5"),
        ("description", "Brązowa, biała łapa"),
    ]
    static let contact: [(String, String)] = [
        ("phone", "+48 600 123 456"), ("email", "ala@example.pl"), ("reward", "Kawa"),
        ("caregiverPhone", "600 654 321"), ("address", "Łąkowa 1, Warszawa"),
    ]

    /// The values of `fields` as the page shows them (HTML-escaped, the chip number grouped).
    static func expectShown(
        _ html: String, _ fields: [(String, String)], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for (name, value) in fields {
            switch name {
            case "species":
                #expect(html.contains("value=\"\(value)\" id=\"animalDescription.species.\(value)\" selected"))
            case "gender":
                #expect(html.contains("value=\"\(value)\" id=\"animalDescription.genderFemale.tap\" checked"))
            case "chipNumber": #expect(html.contains("value=\"\(MicrochipFormatter.format(value))\""))
            case "description", "address": #expect(html.contains(">\(value)</textarea>"), "\(name)")
            default: #expect(html.contains("name=\"\(name)\" type=") && html.contains("value=\"\(value)\""), "\(name)")
            }
        }
    }

    @Test func theLanguageButtonsOfEachStepSubmitItsForm() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            let photo = try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            #expect(photo.html.contains("id=\"languageSwitch.pl.tap\" form=\"photoForm\""))
            try await KioskFlowTests.toDetails(browser)
            let details = try await browser.get("/report/details")
            #expect(
                details.html.contains("name=\"lang\" value=\"pl\" id=\"languageSwitch.pl.tap\" form=\"detailsForm\""))
            #expect(details.html.contains("id=\"languageSwitch.en.tap\" form=\"detailsForm\""))
            try await browser.post("/report/details", [("action", "continue")] + KioskFlowTests.validDetails)
            let contact = try await browser.get("/report/contact")
            #expect(contact.html.contains("id=\"languageSwitch.pl.tap\" form=\"contactForm\""))
            // With a photo there is nothing to upload: the buttons post to /language (the photo is the visit's).
            try await browser.post("/report/contact", [("action", "back")])
            try await browser.post("/report/details", [("action", "back")])
            let confirmed = try await browser.get("/report/photo")
            #expect(confirmed.html.contains("id=\"animalPhoto.confirmationCard\""))
            #expect(confirmed.html.contains("id=\"languageSwitch.pl.tap\" lang=\"pl\""))
            #expect(confirmed.html.contains("action=\"/language?_csrf="))
        }
    }

    @Test func switchingLanguageOnTheDetailsAndContactStepsKeepsEveryValueToTheReport() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await KioskFlowTests.toDetails(browser)

            // Details: fill everything, switch to Polish, then back to English; no errors, the same step.
            let toPolish = try await browser.post("/report/details", Self.details + [("lang", "pl")])
            #expect(toPolish.headers[.location] == "/report/details")
            let polish = try await browser.get("/report/details")
            #expect(polish.html.contains("<html lang=\"pl\">"))
            #expect(polish.html.contains("Informacje o zwierzęciu"))
            #expect(!polish.html.contains("class=\"toast\"") && !polish.html.contains("aria-invalid=\"true\""))
            Self.expectShown(polish.html, Self.details)
            // Typed over in Polish, then switched back: the newest values stay.
            var edited = Self.details.filter { $0.0 != "race" } + [("race", "Baran francuski")]
            let toEnglish = try await browser.post("/report/details", edited + [("lang", "en")])
            #expect(toEnglish.headers[.location] == "/report/details")
            let english = try await browser.get("/report/details")
            #expect(english.html.contains("<html lang=\"en\">") && english.html.contains("Pet details"))
            Self.expectShown(english.html, edited)
            edited = edited.filter { $0.0 != "date" } + [("date", "2026-11-20")]
            try await browser.post("/report/details", [("action", "continue")] + edited)

            // Contact: the same, then submit.
            let contactToPolish = try await browser.post("/report/contact", Self.contact + [("lang", "pl")])
            #expect(contactToPolish.headers[.location] == "/report/contact")
            let contactPolish = try await browser.get("/report/contact")
            #expect(contactPolish.html.contains("Dane kontaktowe"))
            Self.expectShown(contactPolish.html, Self.contact)
            // Back and forth keeps them too, and the photo.
            try await browser.post("/report/contact", Self.contact + [("action", "back")])
            try await browser.post("/report/details", edited + [("lang", "en")])
            try await browser.post("/report/details", [("action", "back")] + edited)
            let photo = try await browser.get("/report/photo")
            #expect(photo.html.contains("id=\"animalPhoto.confirmationCard\"") && photo.html.contains("Add a photo"))
            try await browser.post("/language", [("lang", "pl"), ("return", "/report/photo")])
            let polishPhoto = try await browser.get("/report/photo")
            #expect(
                polishPhoto.html.contains("id=\"animalPhoto.confirmationCard\"")
                    && polishPhoto.html.contains(">rex.png<"))
            try await browser.post("/report/photo/continue")
            Self.expectShown(try await browser.get("/report/details").html, edited)
            try await browser.post("/report/details", [("action", "continue")] + edited)
            let submitted = try await browser.post("/report/contact", Self.contact + [("action", "submit")])
            #expect(submitted.headers[.location] == "/report/thanks")

            let report = try #require(harness.sink.reports.first)
            #expect(report.details.date == CalendarDate(year: 2026, month: 11, day: 20))
            #expect(report.details.species == .rabbit && report.details.race == "Baran francuski")
            #expect(report.details.gender == .female && report.details.age == 2)
            #expect(report.details.chipNumber == "98765432101234" && report.details.petName == "Łatka")
            #expect(report.details.latitude == 52.25 && report.details.longitude == -1.5)
            #expect(report.details.description == "Brązowa, biała łapa")
            #expect(
                report.contact
                    == FoundPetContact(
                        phone: "+48 600 123 456", email: "ala@example.pl", reward: "Kawa",
                        caregiverPhone: "600 654 321", address: "Łąkowa 1, Warszawa"))
            #expect(report.photo.width == 2 && report.photo.height == 3)
        }
    }

    /// Without JavaScript a picked photo is only sent with the form: the language buttons submit it, so the
    /// photo goes up and the page comes back in the new language.
    @Test func aPhotoPickedWithoutJavaScriptGoesUpWithTheLanguageButton() async throws {
        let harness = try await KioskHarness()
        try await harness.run { client in
            let browser = Browser(client)
            try await browser.follow(try await browser.tapStart(on: try await browser.get("/")))
            let switched = try await browser.upload(
                "/report/photo", fileName: "rex.png", data: Images.png, fields: [("lang", "pl")])
            #expect(switched.headers[.location] == "/report/photo")
            let page = try await browser.get("/report/photo")
            #expect(page.html.contains("<html lang=\"pl\">") && page.html.contains("Dodaj zdjęcie"))
            #expect(page.html.contains("id=\"animalPhoto.confirmationCard\""))
            #expect(harness.draftFiles.count == 1)
            // Nothing picked: the language switches, and there is no error nor helper.
            try await browser.post("/report/photo/remove")
            try await browser.upload("/report/photo", fileName: "", data: Data(), fields: [("lang", "en")])
            let english = try await browser.get("/report/photo")
            #expect(english.html.contains("<html lang=\"en\">") && english.html.contains("Add a photo"))
            #expect(english.html.contains("id=\"animalPhoto.pickerCancelled.text\" role=\"status\" hidden"))
            #expect(english.html.contains("id=\"animalPhoto.fileInput.error\" role=\"alert\" hidden"))
        }
    }
}
