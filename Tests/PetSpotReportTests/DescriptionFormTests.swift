import PetSpotReport
import Testing

@Suite("Description form")
struct DescriptionFormTests {
    static let today = CalendarDate(year: 2026, month: 3, day: 15)!

    @Test func continueReturnsEveryErrorAtOnceInFieldOrder() {
        let form = DescriptionForm(
            date: CalendarDate(year: 2026, month: 3, day: 16), ageText: "41", latitudeText: "90.0001",
            longitudeText: "181", descriptionText: String(repeating: "x", count: 501))
        #expect(
            form.validate(today: Self.today).map(\.message) == [
                "The date cannot be in the future",
                "Please select a species",
                "Please enter the animal's breed/race",
                "Please select a gender",
                "Age must be between 0 and 40",
                "Latitude must be between -90 and 90",
                "Longitude must be between -180 and 180",
            ])  // the 501-character description is cut, not refused (seed 003)
        #expect(form.descriptionText.count == 500)
        guard case .failure(let errors) = form.validated(today: Self.today) else {
            Issue.record("expected errors")
            return
        }
        #expect(errors.message(for: .age) == "Age must be between 0 and 40")
        #expect(errors.errors.count == 7)
    }

    @Test func validFormGivesTrimmedValues() throws {
        let form = DescriptionForm(
            date: Self.today, species: .dog, race: "  Beagle ", gender: .male, ageText: "0", latitudeText: "52,2297",
            longitudeText: "-180", descriptionText: "  ")
        #expect(form.validate(today: Self.today).isEmpty)
        let value = try form.validated(today: Self.today).get()
        #expect(value.race == "Beagle")
        #expect(value.age == 0)
        #expect(value.latitude == 52.2297)
        #expect(value.longitude == -180)
        #expect(value.description == nil)
    }

    @Test func optionalFieldsMayBeEmpty() throws {
        let form = DescriptionForm(date: Self.today, species: .cat, race: "Mixed", gender: .female)
        let value = try form.validated(today: Self.today).get()
        #expect(value.age == nil && value.latitude == nil && value.longitude == nil)
    }

    @Test func changingSpeciesClearsRace() {
        var form = DescriptionForm(species: .dog, race: "Beagle")
        form.species = .dog
        #expect(form.race == "Beagle")
        form.species = .cat
        #expect(form.race == "")
        form.race = "Siamese"
        form.species = nil
        #expect(form.race == "")
    }

    @Test func singleFieldErrors() {
        let form = DescriptionForm(ageText: "4.5")
        #expect(form.error(for: .age, today: Self.today)?.message == "Age must be a whole number")
        #expect(form.error(for: .latitude, today: Self.today) == nil)
        #expect(form.error(for: .phone, today: Self.today) == nil)
    }

    @Test func foundPetDetailsRequireCoordinatesNotRace() {
        var details = FoundPetDetailsForm()
        details.description.date = Self.today
        details.description.species = .rabbit
        details.description.gender = .female
        #expect(
            details.validate(today: Self.today).map(\.message) == [
                "Fill in latitude", "Fill in longitude",
            ])
        details.description.latitudeText = "52.1"
        details.description.longitudeText = "21,2"
        details.petName = String(repeating: "p", count: 101)
        #expect(details.validate(today: Self.today).map(\.message) == ["Pet name must be at most 100 characters"])
        details.petName = " Bunny "
        details.chipNumber = "12345-67890"
        let value = try? details.validated(today: Self.today).get()
        #expect(value?.race == nil)
        #expect(value?.petName == "Bunny")
        #expect(value?.chipNumber == "1234567890")
        #expect(value?.longitude == 21.2)
    }

    @Test func contactFormReturnsEveryError() {
        let contact = ContactForm(
            phone: "12", email: "x", caregiverPhone: "1", address: String(repeating: "a", count: 501))
        // The address is cut, not refused.
        #expect(contact.validate().map(\.field) == [.phone, .email, .caregiverPhone])
        #expect(ContactForm(phone: "600123456", email: "a@b.pl").validate().isEmpty)
    }
}
