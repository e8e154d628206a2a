import ArgumentParser
import FoundationEssentials
import PetSpotLocation
import PetSpotLocationMock
import PetSpotPhotoCleaning
import PetSpotSimulatedSource
import PetSpotKioskConfiguration
import PetSpotOutbox
import PetSpotReport

/// `petspot-report found`: the three-step found-pet flow on standard input/output.
struct FoundCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "found",
        abstract: "Report a found pet: photo, pet details, contact.",
        discussion: """
            Reads one answer per line from standard input, re-asks on invalid input, and \
            saves the report: with --config, into the station's delivery queue (the [outbox] \
            of the kiosk configuration, delivered by `petspot-report send` or the kiosk); with \
            --outbox DIR, as <DIR>/<uuid>.json with the photo beside it. Type 'gps' at the \
            latitude prompt to use this station's location. Exits 1 without saving anything \
            when the input ends early.
            """
    )

    @Option(name: .long, help: "Directory the finished report is written to (JSON + photo).")
    var outbox: String?

    @Option(name: .long, help: "The kiosk configuration: queue the report in its [outbox] for delivery.")
    var config: String?

    @Option(
        name: .long,
        help: "The location daemon's socket (default: the configuration's, else /run/petspot/locationd.sock).")
    var socket: String?

    @Option(name: .long, help: "Use a simulated source playing this scenario file instead of the daemon.")
    var scenario: String?

    @Option(
        name: .long,
        help: "With --scenario: the starting authorization (authorized, notDetermined, denied, restricted).")
    var mockAuthorization: AuthorizationStatus = .authorized

    @Option(name: .long, help: "With --scenario: what a permission prompt answers (allow, reduced, deny, unavailable).")
    var mockPrompt: MockPrompt = .allow

    @Option(
        name: .long, help: "Seconds to wait for a position after 'gps' (1-300; default: the configuration's, else 10).")
    var gpsTimeout: Double?

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
        if let gpsTimeout, !(1...300).contains(gpsTimeout) {
            throw ValidationError("--gps-timeout must be between 1 and 300")
        }
        switch (outbox, config) {
        case (nil, nil): throw ValidationError("give --config FILE (the delivery queue) or --outbox DIR (a directory)")
        case (.some, .some): throw ValidationError("give either --config or --outbox, not both")
        case (let directory?, nil) where directory.isEmpty: throw ValidationError("--outbox must not be empty")
        default: break
        }
    }

    func run() async throws {
        var socket = self.socket ?? DaemonSocket.defaultPath
        var gpsTimeout = self.gpsTimeout ?? 10
        let sink: any FoundPetReportSink
        if let config {
            let configuration = try loadKioskConfiguration(config)
            socket = self.socket ?? configuration.location.socket
            gpsTimeout = self.gpsTimeout ?? Double(configuration.location.gpsTimeout / .milliseconds(1)) / 1000
            sink = try openOutbox(configuration.outbox.path)
        } else {
            sink = FoundPetOutbox(directory: URL(fileURLWithPath: outbox ?? "", isDirectory: true))
        }
        let request = LocationRequest(timeout: .fromSeconds(gpsTimeout))
        guard let scenario else {
            try await converse(service: makeDaemonService(socketPath: socket), request: request, outbox: sink)
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
            try await converse(service: mock, request: request, outbox: sink)
        }
    }

    private func converse(
        service: any LocationService, request: LocationRequest, outbox: any FoundPetReportSink
    ) async throws {
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
        } catch {
            StandardInput.writeError("petspot-report: \(error)")
            throw ExitCode(1)
        }
    }
}

extension AuthorizationStatus: ExpressibleByArgument {}
