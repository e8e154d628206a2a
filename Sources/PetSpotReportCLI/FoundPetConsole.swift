import FoundationEssentials
import PetSpotLocation
import PetSpotPOSIX
import PetSpotPhotoCleaning
import PetSpotReport

/// The found-pet flow as a line-by-line terminal conversation (the kiosk's
/// `petspot-report found`).
///
/// Each prompt reads one line; invalid input prints the field's exact
/// message and asks again. Lines, in order:
///
/// 1. `Photo file path:` — a path to a JPG, PNG, HEIC, GIF or WEBP file.
/// 2. `Date found (YYYY-MM-DD or today):`
/// 3. `Species (dog, cat, bird, rabbit, rodent, reptile, other):`
/// 4. `Breed/race (optional):`
/// 5. `Gender (male, female):`
/// 6. `Age in years (optional):`
/// 7. `Latitude (or gps to use this station's location):` — `gps` runs
///    ``GPSFillAction``: when it fills, both coordinates are set and the
///    longitude prompt is skipped; otherwise its message (or permission
///    alert) is printed and latitude is asked again.
/// 8. `Longitude:` (only when the latitude was typed; `gps` works here too)
/// 9. `Chip number (optional):`
/// 10. `Pet name (optional):`
/// 11. `Description (optional, at most 500 characters):` — a longer text is
///     cut at 500 characters, with no error (seed 003).
/// 12. `Phone number (7-11 digits):` — digits past the 11th are cut, with no
///     error; fewer than 7: "Enter at least 7 digits" (seed 004).
/// 13. `Email:`
/// 14. `Reward (optional):`
/// 15. `Caregiver phone (optional):`
/// 16. `Address (optional):` — cut at 500 characters, with no error.
///
/// Before the report is saved the photo is checked again: a draft counts
/// only while its file exists (seed 000); when it is gone, "Photo is
/// mandatory" is printed and the photo is asked for again.
///
/// On success it prints `Report saved: <receipt>` (the JSON file's path for a
/// plain directory, the report id for the delivery queue). When the input
/// ends early nothing is written and ``Ended`` is thrown.
public struct FoundPetConsole: Sendable {
    /// The input ended before the report was complete.
    public struct Ended: Error, Sendable, CustomStringConvertible {
        public init() {}
        public var description: String { "input ended before the report was complete; nothing was saved" }
    }

    /// Longest accepted input line (characters).
    public static let maximumLineLength = 4096
    /// Message for a line over ``maximumLineLength``.
    public static let lineTooLong = "Input is too long"

    private let readLine: @Sendable () async -> String?
    private let write: @Sendable (String) -> Void
    private let gps: GPSFillAction
    private let cache: PhotoDraftCache
    private let outbox: any FoundPetReportSink
    private let today: @Sendable () -> CalendarDate

    /// Creates the conversation.
    /// - Parameters:
    ///   - service: where "gps" gets positions (the daemon client, or a mock).
    ///   - request: the fix request made for "gps".
    ///   - cache: the draft photo cache.
    ///   - outbox: where the finished report goes.
    ///   - today: the current day (injected for tests).
    ///   - readLine: the next input line without its newline, `nil` at end of input.
    ///   - write: prints text as is (prompts have no newline).
    public init(
        service: any LocationService, request: LocationRequest = LocationRequest(), cache: PhotoDraftCache,
        outbox: any FoundPetReportSink, today: @escaping @Sendable () -> CalendarDate,
        readLine: @escaping @Sendable () async -> String?, write: @escaping @Sendable (String) -> Void
    ) {
        self.gps = GPSFillAction(service: service, request: request)
        self.cache = cache
        self.outbox = outbox
        self.today = today
        self.readLine = readLine
        self.write = write
    }

    /// Runs the conversation to the end.
    /// - Returns: the receipt of the saved report (see ``FoundPetReportSink/save(_:photo:)``).
    /// - Throws: ``Ended`` when the input ends early; the sink's error when saving fails.
    @discardableResult
    public func run() async throws -> String {
        var flow = FoundPetFlow()
        do {
            say("Report a found pet — step 1 of 3: \(FoundPetStep.photo.title)")
            try await completeStep(&flow) { try await askPhoto(&$0) }
            say("Step 2 of 3: \(FoundPetStep.details.title)")
            try await completeStep(&flow) { try await askDetails(&$0.details) }
            say("Step 3 of 3: \(FoundPetStep.contact.title)")
            try await completeStep(&flow) { try await askContact(&$0.contact) }
            while let missing = flow.checkPhoto() {
                say(missing.message)
                try await askPhoto(&flow)
            }
        } catch {
            try? cache.clear()
            throw error
        }
        defer { try? cache.clear() }
        switch flow.report(today: today()) {
        case .failure(let errors):
            // Unreachable: every step passed; kept as a guard.
            throw FoundPetOutbox.WriteError("the report is incomplete: \(errors)")
        case .success(let report):
            guard let photo = flow.attachment.draft else { throw FoundPetOutbox.WriteError("the photo is missing") }
            let receipt = try await outbox.save(report, photo: photo)
            say("Report saved: \(receipt)")
            return receipt
        }
    }

    // MARK: Steps

    /// Asks for the current step's fields with `ask` until "Continue" passes,
    /// printing the errors of each failed pass.
    private func completeStep(
        _ flow: inout FoundPetFlow, ask: (inout FoundPetFlow) async throws -> Void
    ) async throws {
        while true {
            try await ask(&flow)
            let errors = flow.continue(today: today())
            if errors.isEmpty { return }
            errors.forEach { say($0.message) }
        }
    }

    private func askPhoto(_ flow: inout FoundPetFlow) async throws {
        while true {
            let path = try await ask("Photo file path:").trimmingWhitespace()
            guard !path.isEmpty else {
                say(FieldMessages.photoRequired)
                continue
            }
            flow.attachment.handle(.startLoading)
            do {
                let draft = try cache.store(contentsOf: URL(fileURLWithPath: path))
                flow.attachment.handle(.loaded(draft))
                say("Photo: \(draft.info.format.rawValue.uppercased()), \(draft.info.width)×\(draft.info.height)")
                return
            } catch {
                flow.attachment.handle(.failed(error))
                say(error.description)
            }
        }
    }

    private func askDetails(_ details: inout FoundPetDetailsForm) async throws {
        details.description.date = try await askParsed("Date found (YYYY-MM-DD or today):") {
            FieldRules.parseDate($0, today: today())
        }
        details.description.species = try await askParsed("Species (\(Species.choices)):") { text in
            if text.trimmingWhitespace().isEmpty {
                return .failure(FieldError(.species, FieldMessages.speciesRequired))
            }
            return Species(input: text).map { .success($0) }
                ?? .failure(FieldError(.species, FieldMessages.speciesUnknown))
        }
        details.description.race = try await ask("Breed/race (optional):").trimmingWhitespace()
        details.description.gender = try await askParsed("Gender (\(Gender.choices)):") { text in
            if text.trimmingWhitespace().isEmpty { return .failure(FieldError(.gender, FieldMessages.genderRequired)) }
            return Gender(input: text).map { .success($0) }
                ?? .failure(FieldError(.gender, FieldMessages.genderUnknown))
        }
        details.description.ageText = try await askValid("Age in years (optional):") { FieldRules.age($0).failure }
        try await askCoordinates(&details.description)
        let chip = try await ask("Chip number (optional):")
        details.chipNumber = chip
        if !details.chipNumber.isEmpty { say("Chip number: \(details.chipNumberDisplay)") }
        details.petName = try await askValid("Pet name (optional):", FieldRules.petName)
        // A hard cap, no error (seed 003): the setter cuts what is beyond.
        details.description.descriptionText = try await ask(
            "Description (optional, at most \(FieldMessages.maximumTextLength) characters):", cutsLongLines: true
        ).trimmingWhitespace()
    }

    private func askCoordinates(_ form: inout DescriptionForm) async throws {
        let gpsHint = "Latitude (or gps to use this station's location):"
        latitude: while true {
            let latitude = try await ask(gpsHint)
            if latitude.trimmingWhitespace().lowercased() == "gps" {
                if await useGPS(&form) { return }
                continue
            }
            if let error = FieldRules.latitude(latitude, required: true).failure {
                say(error.message)
                continue
            }
            while true {
                let longitude = try await ask("Longitude:")
                if longitude.trimmingWhitespace().lowercased() == "gps" {
                    if await useGPS(&form) { return }
                    continue latitude
                }
                if let error = FieldRules.longitude(longitude, required: true).failure {
                    say(error.message)
                    continue
                }
                form.latitudeText = latitude.trimmingWhitespace()
                form.longitudeText = longitude.trimmingWhitespace()
                return
            }
        }
    }

    /// Runs "Use GPS"; prints what happened. Returns whether the fields were filled.
    private func useGPS(_ form: inout DescriptionForm) async -> Bool {
        say("Locating…")
        let outcome = await gps.perform()
        form.apply(outcome)
        switch outcome {
        case .filled(let latitude, let longitude, _, let accuracy, _):
            say("Location: \(latitude), \(longitude)\(accuracy == .reduced ? " (approximate)" : "")")
            return true
        case .permissionAlert(let alert):
            say("\(alert.title): \(alert.message)")
            say("[\(alert.cancelTitle)] [\(alert.settingsTitle)] \(alert.whomToAsk)")
            return false
        case .failed(let failure):
            say(failure.message)
            return false
        }
    }

    private func askContact(_ contact: inout ContactForm) async throws {
        // More than 11 digits are cut (the setter), not refused.
        contact.phone = try await askValid("Phone number (7-11 digits):", FieldRules.phone)
        contact.email = try await askValid("Email:", FieldRules.email)
        contact.reward = try await askValid("Reward (optional):", FieldRules.reward)
        contact.caregiverPhone = try await askValid("Caregiver phone (optional):", FieldRules.caregiverPhone)
        contact.address = try await ask("Address (optional):", cutsLongLines: true).trimmingWhitespace()
    }

    // MARK: Input

    private func say(_ line: String) { write(line + "\n") }

    /// One line; a line over ``maximumLineLength`` is refused ("Input is too
    /// long") and asked again, unless `cutsLongLines` (a hard-capped field:
    /// the caller's setter cuts it, so nothing is refused).
    private func ask(_ prompt: String, cutsLongLines: Bool = false) async throws -> String {
        while true {
            write(prompt + " ")
            guard let line = await readLine() else {
                write("\n")
                throw Ended()
            }
            if line.count > Self.maximumLineLength, !cutsLongLines {
                say(Self.lineTooLong)
                continue
            }
            return line
        }
    }

    private func askValid(_ prompt: String, _ check: (String) -> FieldError?) async throws -> String {
        while true {
            let line = try await ask(prompt)
            if let error = check(line) {
                say(error.message)
                continue
            }
            return line.trimmingWhitespace()
        }
    }

    private func askParsed<Value>(
        _ prompt: String, _ parse: (String) -> Result<Value, FieldError>
    ) async throws -> Value {
        while true {
            switch parse(try await ask(prompt)) {
            case .success(let value): return value
            case .failure(let error): say(error.message)
            }
        }
    }
}
