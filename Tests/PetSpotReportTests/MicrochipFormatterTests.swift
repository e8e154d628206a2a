import PetSpotReport
import Testing

@Suite("Microchip formatter")
struct MicrochipFormatterTests {
    @Test(arguments: [
        ("", ""),
        ("123", "123"),
        ("123456", "12345-6"),
        ("1234567890", "12345-67890"),
        ("123456789012345", "12345-67890-12345"),
        ("1234567890123456", "12345-67890-12345"),
        ("12a34b56", "12345-6"),
        ("12345-67890", "12345-67890"),
    ])
    func format(input: String, shown: String) {
        #expect(MicrochipFormatter.format(input) == shown)
    }

    @Test(arguments: [
        ("1234567890123456", "123456789012345"),
        ("12a34b56", "123456"),
        ("٣٤٥", ""),
    ])
    func digits(input: String, kept: String) {
        #expect(MicrochipFormatter.digits(input) == kept)
    }

    @Test func detailsFormKeepsDigitsOnly() {
        var form = FoundPetDetailsForm()
        form.chipNumber = "12a34b56"
        #expect(form.chipNumber == "123456")
        #expect(form.chipNumberDisplay == "12345-6")
        form.chipNumber = "1234567890123456"
        #expect(form.chipNumber.count == 15)
    }
}
