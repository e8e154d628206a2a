import ArgumentParser
import PetSpotLocation
import PetSpotLocationClient
import PetSpotProtocol

/// `petspot-location authorization status|request`.
struct AuthorizationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authorization",
        abstract: "Show or ask for this client's location permission.",
        subcommands: [Status.self, Request.self])

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print this client's status: notDetermined, authorized, denied or restricted (exit 3 unless authorized).")

        @OptionGroup var client: ClientOptions

        func run() async throws {
            do {
                let state = try await client.makeClient().authorizationStatus()
                print(client.json ? Output.json(WireCoding.encode(state)) : Output.describe(state))
                if state.status != .authorized { throw CLIExit(code: CLIExit.notAuthorized, message: "") }
            } catch let error as LocationError {
                throw CLIExit(error)
            }
        }
    }

    struct Request: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Ask for permission when it was never decided (the daemon's policy or its prompt agent answers).")

        @OptionGroup var client: ClientOptions

        @Option(name: .long, help: "full or reduced.")
        var accuracy: String = "full"

        func validate() throws {
            guard AccuracyAuthorization(rawValue: accuracy) != nil else {
                throw ValidationError("--accuracy must be full or reduced")
            }
        }

        func run() async throws {
            do {
                let state = try await client.makeClient().requestAuthorization(
                    accuracy: AccuracyAuthorization(rawValue: accuracy) ?? .full)
                print(client.json ? Output.json(WireCoding.encode(state)) : Output.describe(state))
                if state.status != .authorized { throw CLIExit(code: CLIExit.notAuthorized, message: "") }
            } catch let error as LocationError {
                throw CLIExit(error)
            }
        }
    }
}
