import Foundation
import PetSpotPhotoCleaning
import PetSpotReport
import PetSpotReportCLI
import Testing

@Suite("Found-pet flow")
struct FoundPetFlowTests {
    static let today = CalendarDate(year: 2026, month: 3, day: 15)!

    @Test func stepsGateOnTheirOwnErrors() throws {
        let root = try PhotoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        var flow = FoundPetFlow()
        #expect(flow.step == .photo)
        #expect(flow.continue(today: Self.today).map(\.message) == ["Photo is mandatory"])
        #expect(flow.step == .photo)

        let cache = PhotoDraftCache(environment: ["XDG_CACHE_HOME": root.path])
        flow.attachment.handle(.startLoading)
        flow.attachment.handle(.loaded(try cache.store(Data(PhotoFixtures.cameraJPEG(width: 640, height: 480)))))
        #expect(flow.continue(today: Self.today).isEmpty)
        #expect(flow.step == .details)

        #expect(
            flow.continue(today: Self.today).map(\.message) == [
                "Please select a date", "Please select a species", "Please select a gender",
                "Fill in latitude", "Fill in longitude",
            ])
        flow.details.description.date = Self.today
        flow.details.description.species = .cat
        flow.details.description.gender = .female
        flow.details.description.latitudeText = "52,2297"
        flow.details.description.longitudeText = "21.0122"
        flow.details.chipNumber = "123456789012345"
        #expect(flow.continue(today: Self.today).isEmpty)
        #expect(flow.step == .contact)

        flow.back()
        #expect(flow.step == .details)
        #expect(flow.details.description.latitudeText == "52,2297")
        flow.continue(today: Self.today)

        #expect(flow.continue(today: Self.today).map(\.field) == [.phone, .email])
        flow.contact.phone = "600 123 456"
        flow.contact.email = "finder@example.com"
        flow.contact.reward = "50 PLN"
        #expect(flow.continue(today: Self.today).isEmpty)
        #expect(flow.step == .contact)

        let id = UUID()
        let report = try flow.report(id: id, createdAt: Date(timeIntervalSince1970: 1_773_576_000), today: Self.today)
            .get()
        let decoded = try FoundPetReport.decode(try report.jsonData())
        #expect(decoded == report)
        #expect(report.photo.file == "\(id.uuidString.lowercased()).jpg")
        #expect(report.photo.width == 640)
        #expect(report.details.latitude == 52.2297)
        #expect(report.details.chipNumber == "123456789012345")
        #expect(report.contact.reward == "50 PLN")
        #expect(report.contact.caregiverPhone == nil)

        let json = try #require(try JSONSerialization.jsonObject(with: report.jsonData()) as? [String: Any])
        #expect(json["kind"] as? String == "found")
        #expect(json["createdAt"] as? String == "2026-03-15T12:00:00Z")
        let details = try #require(json["details"] as? [String: Any])
        #expect(details["date"] as? String == "2026-03-15")
        #expect(details["race"] == nil)

        flow.reset()
        #expect(flow == FoundPetFlow())
    }

    /// Seed 000: a draft photo counts only while its file exists, checked before Continue and before submit.
    @Test func aDraftWhoseFileIsGoneIsNoPhoto() throws {
        let root = try PhotoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = PhotoDraftCache(environment: ["XDG_CACHE_HOME": root.path])
        var flow = FoundPetFlow()
        let draft = try cache.store(Data(PhotoFixtures.cameraJPEG(width: 640, height: 480)))
        flow.attachment = .confirmed(draft)
        try FileManager.default.removeItem(at: draft.file)
        #expect(!draft.isOnDisk)
        #expect(flow.continue(today: Self.today).map(\.message) == ["Photo is mandatory"])
        #expect(flow.step == .photo && flow.attachment == .empty)  // the vanished draft is forgotten

        // Before submit: everything else valid, the file removed on the last step.
        flow.attachment = .confirmed(try cache.store(Data(PhotoFixtures.cameraJPEG(width: 640, height: 480))))
        flow.continue(today: Self.today)
        flow.details = FoundPetDetailsForm(
            description: DescriptionForm(
                date: Self.today, species: .dog, gender: .male, latitudeText: "1", longitudeText: "2"))
        flow.continue(today: Self.today)
        flow.contact = ContactForm(phone: "1234567", email: "a@b.pl")
        #expect(flow.continue(today: Self.today).isEmpty && flow.step == .contact)
        #expect(flow.checkPhoto() == nil)
        try cache.clear()
        guard case .failure(let errors) = flow.report(today: Self.today) else {
            Issue.record("a report without its photo file")
            return
        }
        #expect(errors.errors.map(\.message) == ["Photo is mandatory"])
        #expect(flow.checkPhoto()?.message == "Photo is mandatory")
        #expect(flow.step == .photo && flow.attachment == .empty)
        #expect(flow.details.description.species == .dog && flow.contact.phone == "1234567")  // the rest kept
    }

    @Test func reportListsEveryMissingThing() {
        guard case .failure(let errors) = FoundPetFlow().report(today: Self.today) else {
            Issue.record("expected errors")
            return
        }
        #expect(errors.errors.first?.message == "Photo is mandatory")
        #expect(errors.message(for: .phone) == "Enter at least 7 digits")
    }

    @Test func outboxWritesPhotoAndJSON() throws {
        let root = try PhotoFixtures.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let cache = PhotoDraftCache(environment: ["XDG_CACHE_HOME": root.appendingPathComponent("c").path])
        var flow = FoundPetFlow()
        flow.attachment = .confirmed(try cache.store(Data(PhotoFixtures.gif(width: 5, height: 6))))
        flow.details = FoundPetDetailsForm(
            description: DescriptionForm(
                date: Self.today, species: .bird, gender: .male, latitudeText: "1", longitudeText: "2"))
        flow.contact = ContactForm(phone: "1234567", email: "a@b.pl")
        let report = try flow.report(today: Self.today).get()
        let file = try FoundPetOutbox(directory: root.appendingPathComponent("out")).write(
            report, photo: try #require(flow.attachment.draft))
        #expect(try FoundPetReport.decode(Data(contentsOf: file)) == report)
        let photo = root.appendingPathComponent("out").appendingPathComponent(report.photo.file)
        #expect(try Data(contentsOf: photo) == Data(PhotoFixtures.gif(width: 5, height: 6)))
    }
}
