import Foundation
import PetSpotPhotoCleaning
import PetSpotReport
import PetSpotReportCLI
import Testing

/// Drives `petspot-report found` through standard input, as a kiosk user would.
@Suite("petspot-report found (stdin)")
struct ReportCommandTests {
    struct Workspace {
        var root: URL
        var outbox: URL { root.appendingPathComponent("outbox") }
        var cache: URL { root.appendingPathComponent("cache") }
        var environment: [String: String] { ["XDG_CACHE_HOME": cache.path] }

        init() throws { root = try PhotoFixtures.temporaryDirectory() }

        func scenario(_ json: String) throws -> String {
            try PhotoFixtures.write(Array(json.utf8), named: "scenario.json", in: root).path
        }

        func reports() throws -> [URL] {
            guard FileManager.default.fileExists(atPath: outbox.path) else { return [] }
            return try FileManager.default.contentsOfDirectory(at: outbox, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "json" }
        }

        func remove() { try? FileManager.default.removeItem(at: root) }
    }

    static let warsaw = #"{"steps": [{"fix": {"latitude": 52.2297, "longitude": 21.0122, "horizontalAccuracy": 5}}]}"#

    @Test func completeFlowWithInvalidAnswersAndGPS() async throws {
        let work = try Workspace()
        defer { work.remove() }
        let photo = try PhotoFixtures.write(
            PhotoFixtures.cameraJPEG(width: 640, height: 480), named: "found.jpg", in: work.root)
        let bmp = try PhotoFixtures.write(PhotoFixtures.bmp, named: "found.bmp", in: work.root)
        let input = [
            "", bmp.path, photo.path,
            "2999-01-01", "today",
            "", "hamster", "dog",
            "Beagle",
            "", "male",
            "4.5", "41", "-1", "3",
            "90.0001", "gps",
            "12a34b56", "Rex", "",
            "123", "600 123 456",
            "finder@", "finder@example.com",
            "50 PLN", "12", "7654321", "",
        ]
        let output = try await ReportCLI.run(
            ["found", "--scenario", work.scenario(Self.warsaw), "--outbox", work.outbox.path], input: input,
            environment: work.environment)
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        for message in [
            "Photo is mandatory", "Please choose a JPG, PNG, HEIC, GIF or WEBP photo",
            "The date cannot be in the future",
            "Please select a species", "Please select a gender", "Age must be a whole number",
            "Age must be between 0 and 40", "Latitude must be between -90 and 90", "Location: 52.229700, 21.012200",
            "Chip number: 12345-6", "Enter at least 7 digits", "Enter a valid email address",
            "Enter at least 7 digits", "Report saved: ",
        ] {
            #expect(output.stdout.contains(message), "missing \(message)")
        }

        let files = try work.reports()
        try #require(files.count == 1)
        let report = try FoundPetReport.decode(Data(contentsOf: files[0]))
        #expect(report.details.species == .dog)
        #expect(report.details.race == "Beagle")
        #expect(report.details.gender == .male)
        #expect(report.details.age == 3)
        #expect(report.details.latitude == 52.2297)
        #expect(report.details.longitude == 21.0122)
        #expect(report.details.chipNumber == "123456")
        #expect(report.details.petName == "Rex")
        #expect(report.details.description == nil)
        #expect(
            report.contact
                == FoundPetContact(
                    phone: "600 123 456", email: "finder@example.com", reward: "50 PLN", caregiverPhone: "7654321",
                    address: nil))
        #expect(report.photo.format == .jpeg && report.photo.width == 640 && report.photo.height == 480)
        let copied = work.outbox.appendingPathComponent(report.photo.file)
        // What was queued is the cleaned photo (SPEC §7): no EXIF, XMP or comment, still a 640×480 JPEG.
        let queued = [UInt8](try Data(contentsOf: copied))
        #expect(PhotoSniffer.inspect(queued) == PhotoInfo(format: .jpeg, width: 640, height: 480))
        #expect(report.photo.bytes == queued.count)
        for text in ["Exif", "http://ns.adobe.com/xap", "Kwiatowa"] { #expect(!PhotoFixtures.contains(queued, text)) }
        // The draft cache is cleaned up after saving.
        let drafts = work.cache.appendingPathComponent("PetSpot/ReportFoundPet")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: drafts.path)) ?? [] == [])
    }

    /// Seeds 003 and 004: the description and the address are cut at 500 characters (even a line longer than the
    /// terminal's line limit), the phones at 11 digits; nothing of it is refused or reported.
    @Test func longTextsAndPhonesAreCutSilently() async throws {
        let work = try Workspace()
        defer { work.remove() }
        let photo = try PhotoFixtures.write(
            PhotoFixtures.cameraJPEG(width: 640, height: 480), named: "found.jpg", in: work.root)
        let description = String(repeating: "d", count: 499) + "żxyz"
        let address = String(repeating: "a", count: FoundPetConsole.maximumLineLength + 10)
        var input = ReportCLI.validAnswers(photo: photo.path, coordinates: ["52.1", "21.1"])
        let last = input.count
        input[last - 6] = description  // description
        input[last - 5] = "+48 600 123 456 789"  // phone: 14 digits
        input[last - 2] = "60012345678999"  // caregiver phone
        input[last - 1] = address
        let output = try await ReportCLI.run(
            ["found", "--scenario", work.scenario(Self.warsaw), "--outbox", work.outbox.path], input: input,
            environment: work.environment)
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        for refusal in ["Enter at most", "Input is too long", "Enter at least 7 digits", "must be"] {
            #expect(!output.stdout.contains(refusal), "refused: \(refusal)\n\(output.stdout)")
        }
        let report = try FoundPetReport.decode(Data(contentsOf: try #require(work.reports().first)))
        #expect(report.details.description == String(repeating: "d", count: 499) + "ż")
        #expect(report.contact.phone == "+48 600 123 456")
        #expect(report.contact.caregiverPhone == "60012345678")
        #expect(report.contact.address == String(repeating: "a", count: 500))
    }

    @Test func typedCoordinatesWithCommaDecimal() async throws {
        let work = try Workspace()
        defer { work.remove() }
        let photo = try PhotoFixtures.write(
            PhotoFixtures.webpLossless(width: 10, height: 20), named: "p", in: work.root)
        let output = try await ReportCLI.run(
            ["found", "--scenario", work.scenario(Self.warsaw), "--outbox", work.outbox.path],
            input: ReportCLI.validAnswers(photo: photo.path, coordinates: ["-33,8688", "181", "151,2093"]),
            environment: work.environment)
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.contains("Longitude must be between -180 and 180"))
        let report = try FoundPetReport.decode(Data(contentsOf: try #require(work.reports().first)))
        #expect(report.details.latitude == -33.8688)
        #expect(report.details.longitude == 151.2093)
        #expect(report.photo.format == .webp)
    }

    @Test func deniedGPSShowsTheAlertAndTheUserTypesCoordinates() async throws {
        let work = try Workspace()
        defer { work.remove() }
        let photo = try PhotoFixtures.write(PhotoFixtures.png(width: 1, height: 1), named: "p.png", in: work.root)
        let output = try await ReportCLI.run(
            [
                "found", "--scenario", work.scenario(Self.warsaw), "--outbox", work.outbox.path,
                "--mock-authorization", "notDetermined", "--mock-prompt", "deny",
            ],
            input: ReportCLI.validAnswers(photo: photo.path, coordinates: ["gps", "1", "2"]),
            environment: work.environment)
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.contains("Location access denied"))
        #expect(output.stdout.contains("[Cancel] [Settings]"))
        #expect(try work.reports().count == 1)
    }

    @Test func unreachableDaemonIsAMessageAndTheFlowGoesOn() async throws {
        let work = try Workspace()
        defer { work.remove() }
        let photo = try PhotoFixtures.write(PhotoFixtures.gif(width: 1, height: 1), named: "p.gif", in: work.root)
        let output = try await ReportCLI.run(
            ["found", "--socket", work.root.appendingPathComponent("no.sock").path, "--outbox", work.outbox.path],
            input: ReportCLI.validAnswers(photo: photo.path, coordinates: ["gps", "52.1", "21.2"]),
            environment: work.environment)
        #expect(output.status == 0, "\(output.stdout)\n\(output.stderr)")
        #expect(output.stdout.contains("The location service is not running. Enter the coordinates by hand."))
        let report = try FoundPetReport.decode(Data(contentsOf: try #require(work.reports().first)))
        #expect(report.details.latitude == 52.1)
    }

    @Test(arguments: [1, 6, 12])
    func endOfInputMidFlowWritesNothing(answeredLines: Int) async throws {
        let work = try Workspace()
        defer { work.remove() }
        let photo = try PhotoFixtures.write(PhotoFixtures.png(width: 1, height: 1), named: "p.png", in: work.root)
        let answers = ReportCLI.validAnswers(photo: photo.path, coordinates: ["1", "2"])
        let output = try await ReportCLI.run(
            ["found", "--scenario", work.scenario(Self.warsaw), "--outbox", work.outbox.path],
            input: Array(answers.prefix(answeredLines)), environment: work.environment)
        #expect(output.status != 0)
        #expect(output.stderr.contains("nothing was saved"))
        #expect(try work.reports().isEmpty)
        let drafts = work.cache.appendingPathComponent("PetSpot/ReportFoundPet")
        #expect((try? FileManager.default.contentsOfDirectory(atPath: drafts.path)) ?? [] == [])
    }
}
