import PetSpotReport
import Testing

@Suite("Field rules")
struct FieldRulesTests {
    static let today = CalendarDate(year: 2026, month: 3, day: 15)!

    @Test(arguments: [
        ("", Result<Int?, FieldError>.success(nil)),
        ("   ", .success(nil)),
        ("0", .success(0)),
        ("40", .success(40)),
        (" 7 ", .success(7)),
        ("-1", .failure(FieldError(.age, "Age must be between 0 and 40"))),
        ("41", .failure(FieldError(.age, "Age must be between 0 and 40"))),
        ("99999999999999999999", .failure(FieldError(.age, "Age must be between 0 and 40"))),
        ("4.5", .failure(FieldError(.age, "Age must be a whole number"))),
        ("4,5", .failure(FieldError(.age, "Age must be a whole number"))),
        ("abc", .failure(FieldError(.age, "Age must be a whole number"))),
        ("-", .failure(FieldError(.age, "Age must be a whole number"))),
    ])
    func age(input: String, expected: Result<Int?, FieldError>) {
        #expect(FieldRules.age(input) == expected)
    }

    @Test(arguments: [
        ("52.2297", 52.2297 as Double?),
        ("52,2297", 52.2297),
        ("-0,5", -0.5),
        ("+12", 12),
        (".5", 0.5),
        ("5.", 5),
        (" 21.0122 ", 21.0122),
        ("", nil),
        ("1.2.3", nil),
        ("1,2.3", nil),
        ("1e3", nil),
        ("nan", nil),
        ("inf", nil),
        ("1 000", nil),
        ("abc", nil),
        (".", nil),
        ("-", nil),
    ])
    func decimal(input: String, expected: Double?) {
        #expect(FieldRules.parseDecimal(input) == expected)
    }

    static let latRange = "Latitude must be between -90 and 90"
    static let lonRange = "Longitude must be between -180 and 180"

    @Test(arguments: [
        ("-90", false, Result<Double?, FieldError>.success(-90)),
        ("90", false, .success(90)),
        ("0", false, .success(0)),
        ("52,2297", false, .success(52.2297)),
        ("90.0001", false, .failure(FieldError(.latitude, latRange))),
        ("-90.0001", false, .failure(FieldError(.latitude, latRange))),
        ("-91", false, .failure(FieldError(.latitude, latRange))),
        ("north", false, .failure(FieldError(.latitude, "Latitude must be a number"))),
        ("", false, .success(nil)),
        ("", true, .failure(FieldError(.latitude, "Fill in latitude"))),
    ])
    func latitude(input: String, required: Bool, expected: Result<Double?, FieldError>) {
        #expect(FieldRules.latitude(input, required: required) == expected)
    }

    @Test(arguments: [
        ("-180", false, Result<Double?, FieldError>.success(-180)),
        ("180", false, .success(180)),
        ("21,0122", false, .success(21.0122)),
        ("180.0001", false, .failure(FieldError(.longitude, lonRange))),
        ("-180.0001", false, .failure(FieldError(.longitude, lonRange))),
        ("east", false, .failure(FieldError(.longitude, "Longitude must be a number"))),
        ("", false, .success(nil)),
        ("", true, .failure(FieldError(.longitude, "Fill in longitude"))),
    ])
    func longitude(input: String, required: Bool, expected: Result<Double?, FieldError>) {
        #expect(FieldRules.longitude(input, required: required) == expected)
    }

    @Test(arguments: [
        ("2026-03-15", Result<CalendarDate, FieldError>.success(CalendarDate(year: 2026, month: 3, day: 15)!)),
        ("2026-03-14", .success(CalendarDate(year: 2026, month: 3, day: 14)!)),
        ("today", .success(CalendarDate(year: 2026, month: 3, day: 15)!)),
        ("2024-02-29", .success(CalendarDate(year: 2024, month: 2, day: 29)!)),
        ("2026-03-16", .failure(FieldError(.date, "The date cannot be in the future"))),
        ("2027-01-01", .failure(FieldError(.date, "The date cannot be in the future"))),
        ("", .failure(FieldError(.date, "Please select a date"))),
        ("2025-02-29", .failure(FieldError(.date, "Please enter the date as YYYY-MM-DD"))),
        ("15.03.2026", .failure(FieldError(.date, "Please enter the date as YYYY-MM-DD"))),
        ("2026-3-1", .failure(FieldError(.date, "Please enter the date as YYYY-MM-DD"))),
    ])
    func date(input: String, expected: Result<CalendarDate, FieldError>) {
        #expect(FieldRules.parseDate(input, today: Self.today) == expected)
    }

    @Test func requiredPicks() {
        #expect(FieldRules.species(nil)?.message == "Please select a species")
        #expect(FieldRules.species(.cat) == nil)
        #expect(FieldRules.gender(nil)?.message == "Please select a gender")
        #expect(FieldRules.gender(.female) == nil)
        #expect(FieldRules.date(nil, today: Self.today)?.message == "Please select a date")
    }

    @Test(arguments: [
        ("Labrador", true, nil as String?),
        ("  Labrador  ", true, nil),
        ("", true, "Please enter the animal's breed/race"),
        ("   \t ", true, "Please enter the animal's breed/race"),
        ("", false, nil),
    ])
    func race(input: String, required: Bool, message: String?) {
        #expect(FieldRules.race(input, required: required)?.message == message)
    }

    /// Seeds 003 and 004: description and address are hard capped at 500 characters, with no error.
    @Test func descriptionAndAddressAreCutAt500CharactersWithoutAnError() {
        let long = String(repeating: "a", count: 499) + "żb" + String(repeating: "c", count: 100)
        #expect(FieldRules.capText(long) == String(repeating: "a", count: 499) + "ż")
        #expect(FieldRules.capText("short") == "short")
        var form = DescriptionForm(requirements: .foundPet, descriptionText: long)
        #expect(form.descriptionText.count == 500)
        form.descriptionText = long + long
        #expect(form.descriptionText.count == 500)
        #expect(form.error(for: .description, today: CalendarDate(year: 2026, month: 1, day: 1)!) == nil)
        var contact = ContactForm(address: long)
        #expect(contact.address.count == 500)
        contact.address = long
        #expect(contact.address.count == 500 && contact.error(for: .address) == nil)
    }

    /// SPEC §7: 7-11 digits; more are cut silently (no invented "at most" message), fewer: seed 004's text.
    @Test(arguments: [
        ("123456789012", "12345678901"),
        ("+48 600 123 456 789", "+48 600 123 456"),
        ("(22) 123-4567", "(22) 123-4567"),
        ("12345678901", "12345678901"),
        ("", ""),
    ])
    func phonesAreCappedAt11Digits(input: String, capped: String) {
        #expect(FieldRules.capPhone(input) == capped)
        var contact = ContactForm(phone: input, caregiverPhone: input)
        #expect(contact.phone == capped && contact.caregiverPhone == capped)
        contact.phone = input
        contact.caregiverPhone = input
        #expect(contact.phone == capped && contact.caregiverPhone == capped)
    }

    @Test(arguments: [
        ("1234567", nil as String?),
        ("12345678901", nil),
        ("+48 600-123-456", nil),
        ("(22) 123 4567", nil),
        ("123456", "Enter at least 7 digits"),
        ("123456789012", nil),  // capped at 11 digits, not refused
        ("600abc123", "Enter at least 7 digits"),
        ("", "Enter at least 7 digits"),
    ])
    func phone(input: String, message: String?) {
        #expect(FieldRules.phone(input)?.message == message)
    }

    @Test(arguments: [
        ("", nil as String?),
        ("1234567", nil),
        ("12345678901", nil),
        ("123456", "Enter at least 7 digits"),
        ("123456789012", nil),
        ("x", "Enter at least 7 digits"),
    ])
    func caregiverPhone(input: String, message: String?) {
        #expect(FieldRules.caregiverPhone(input)?.message == message)
    }

    @Test(arguments: [
        ("anna@example.com", nil as String?),
        ("a.b+tag@mail.example.pl", nil),
        (" anna@example.com ", nil),
        ("", "Enter a valid email address"),
        ("anna", "Enter a valid email address"),
        ("anna@", "Enter a valid email address"),
        ("@example.com", "Enter a valid email address"),
        ("anna@example", "Enter a valid email address"),
        ("anna@@example.com", "Enter a valid email address"),
        ("an na@example.com", "Enter a valid email address"),
        ("anna@-example.com", "Enter a valid email address"),
        ("anna@example.c", "Enter a valid email address"),
        ("anna..b@example.com", "Enter a valid email address"),
    ])
    func email(input: String, message: String?) {
        #expect(FieldRules.email(input)?.message == message)
    }

    @Test(arguments: [
        (String(repeating: "r", count: 200), nil as String?),
        (String(repeating: "r", count: 201), "Reward must be at most 200 characters"),
    ])
    func reward(input: String, message: String?) {
        #expect(FieldRules.reward(input)?.message == message)
    }

    @Test(arguments: [
        (String(repeating: "n", count: 100), nil as String?),
        (String(repeating: "n", count: 101), "Pet name must be at most 100 characters"),
    ])
    func petName(input: String, message: String?) {
        #expect(FieldRules.petName(input)?.message == message)
    }

    @Test(arguments: [
        ("dog", Species.dog as Species?), ("Cat", .cat), (" BIRD ", .bird), ("rabbit", .rabbit),
        ("rodent", .rodent), ("reptile", .reptile), ("other", .other), ("hamster", nil), ("", nil),
    ])
    func species(input: String, expected: Species?) {
        #expect(Species(input: input) == expected)
    }

    @Test func speciesListIsTheFixedOne() {
        #expect(Species.allCases.map(\.rawValue) == ["dog", "cat", "bird", "rabbit", "rodent", "reptile", "other"])
    }

    @Test(arguments: [("male", Gender.male as Gender?), ("Female", .female), ("x", nil)])
    func gender(input: String, expected: Gender?) {
        #expect(Gender(input: input) == expected)
    }

    @Test func specMessagesAreVerbatim() {
        #expect(FieldMessages.speciesRequired == "Please select a species")
        #expect(FieldMessages.raceRequired == "Please enter the animal's breed/race")
        #expect(FieldMessages.genderRequired == "Please select a gender")
        #expect(FieldMessages.ageRange == "Age must be between 0 and 40")
        #expect(FieldMessages.latitudeRange == "Latitude must be between -90 and 90")
        #expect(FieldMessages.longitudeRange == "Longitude must be between -180 and 180")
    }
}
