import ArgumentParser
import Foundation
import PetSpotLocation
import PetSpotLocationMock
import PetSpotReport

/// `petspot-report found`: the three-step found-pet flow on standard input/output.
struct FoundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "found",
        abstract: "Report a found pet: photo, pet details, contact.",
        discussion: """
            Reads one answer per line from standard input, re-asks on invalid input, and \
            writes <outbox>/<uuid>.json with the photo beside it. Type 'gps' at the latitude \
            prompt to use this station's location. Exits 1 without writing anything when the \
            input ends early.
            """
    )

    @Option(name: .long, help: "Directory the finished report is written to.")
    var outbox: String

    @Option(name: .long, help: "The location daemon's socket.")
    var socket: String = "/run/petspot/locationd.sock"

    @Option(name: .long, help: "Use a simulated source playing this scenario file instead of the daemon.")
    var scenario: String?

    @Option(name: .long, help: "With --scenario: the starting authorization (authorized, notDetermined, denied, restricted).")
    var mockAuthorization: AuthorizationStatus = .authorized

    @Option(name: .long, help: "With --scenario: what a permission prompt answers (allow, reduced, deny, unavailable).")
    var mockPrompt: MockPrompt = .allow

    @Option(name: .long, help: "Seconds to wait for a position after 'gps' (1-300).")
    var gpsTimeout: Double = 10

    enum MockPrompt: String, ExpressibleByArgument, CaseIterable {
        case allow, reduced, deny, unavailable

        var answer: MockLocationService.PromptAnswer {
            switch self {
            case .allow: .allow(.full)
            case .reduced: .allow(.reduced)
            case .deny: .deny
            case .unavailable: .unavailable
            }
        }
    }

    func validate() throws {
        guard (1...300).contains(gpsTimeout) else { throw ValidationError("--gps-timeout must be between 1 and 300") }
        guard !outbox.isEmpty else { throw ValidationError("--outbox must not be empty") }
    }

    func run() async throws {
        let request = LocationRequest(timeout: .fromSeconds(gpsTimeout))
        let outbox = FoundPetOutbox(directory: URL(fileURLWithPath: outbox, isDirectory: true))
        guard let scenario else {
            try await converse(service: makeDaemonService(socketPath: socket), request: request, outbox: outbox)
            return
        }
        let script: Scenario
        do {
            script = try Scenario.load(contentsOf: scenario)
        } catch {
            throw ValidationError(error.description)
        }
        let mock = MockLocationService(
            authorization: AuthorizationState(status: mockAuthorization, decidedBy: .default),
            promptAnswer: mockPrompt.answer)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await mock.play(script) }
            defer { group.cancelAll() }
            try await converse(service: mock, request: request, outbox: outbox)
        }
    }

    private func converse(service: any LocationService, request: LocationRequest, outbox: FoundPetOutbox) async throws {
        let console = FoundPetConsole(
            service: service, request: request, cache: PhotoDraftCache(), outbox: outbox,
            today: { CalendarDate.day(of: Date()) },
            readLine: { await StandardInput.nextLine() },
            write: { StandardInput.write($0) })
        do {
            _ = try await console.run()
        } catch let ended as FoundPetConsole.Ended {
            StandardInput.writeError("petspot-report: \(ended.description)")
            throw ExitCode(1)
        } catch let failed as FoundPetOutbox.WriteError {
            StandardInput.writeError("petspot-report: \(failed.description)")
            throw ExitCode(1)
        }
    }
}

extension AuthorizationStatus: ExpressibleByArgument {}
