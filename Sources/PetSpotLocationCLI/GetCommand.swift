import ArgumentParser
import PetSpotLocation
import PetSpotLocationClient
import PetSpotProtocol

/// `petspot-location get`: one position.
struct GetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print the device's position once.",
        discussion: """
            A position the daemon received within --max-age answers at once; otherwise it
            waits up to --timeout for a new one. With --desired-accuracy the first position
            at least that accurate answers, or at the timeout the best one seen.
            """)

    @OptionGroup var client: ClientOptions

    @Option(name: .customLong("max-age"), help: "Accept a position received at most this many seconds ago.")
    var maxAge: Double = 5

    @Option(name: .long, help: "Wait at most this many seconds (0-300).")
    var timeout: Double = 10

    @Option(name: .customLong("min-mode"), help: "Least acceptable fix: 2 (2D) or 3 (3D).")
    var minMode: Int?

    @Option(name: .customLong("desired-accuracy"), help: "Wanted horizontal accuracy in metres.")
    var desiredAccuracy: Double?

    func validate() throws {
        guard maxAge.isFinite, maxAge >= 0 else { throw ValidationError("--max-age must be 0 or more seconds") }
        guard timeout.isFinite, (0...300).contains(timeout) else {
            throw ValidationError("--timeout must be between 0 and 300 seconds")
        }
        if let minMode, ![2, 3].contains(minMode) { throw ValidationError("--min-mode must be 2 or 3") }
        if let desiredAccuracy, !(desiredAccuracy.isFinite && desiredAccuracy > 0) {
            throw ValidationError("--desired-accuracy must be a positive number of metres")
        }
    }

    func run() async throws {
        let service = client.makeClient()
        let request = LocationRequest(
            maxAge: .fromSeconds(maxAge), timeout: .fromSeconds(timeout), minMode: minMode.flatMap(FixMode.init),
            desiredAccuracy: desiredAccuracy)
        do {
            let fix = try await service.location(request)
            print(client.json ? Output.json(WireCoding.encode(fix)) : Output.describe(fix))
        } catch {
            throw CLIExit(error)
        }
    }
}
