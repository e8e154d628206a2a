import ArgumentParser
import Foundation
import PetSpotLocation
import PetSpotLocationClient
import PetSpotProtocol

/// `petspot-location authorization status|request|reset`.
struct AuthorizationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authorization",
        abstract: "Show or ask for this client's location permission.",
        subcommands: [Status.self, Request.self, Reset.self])

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

    /// `reset --user NAME | --uid N`: forgets the remembered decision of one
    /// user (admins only, `[policy.admin]`), who is asked again next time.
    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget a user's remembered location decision (admins only); that user is asked again.")

        @OptionGroup var client: ClientOptions

        @Option(name: .long, help: "The user whose decision is forgotten, by name.")
        var user: String?

        @Option(name: .long, help: "The user whose decision is forgotten, by uid.")
        var uid: UInt32?

        func validate() throws {
            guard (user == nil) != (uid == nil) else { throw ValidationError("give exactly one of --user NAME or --uid N") }
        }

        func run() async throws {
            let target: UInt32
            if let uid {
                target = uid
            } else if let user, let entry = getpwnam(user) {
                target = entry.pointee.pw_uid
            } else {
                throw CLIExit(code: CLIExit.usage, message: "petspot-location: no such user: \(user ?? "")")
            }
            do throws(LocationError) {
                try await client.makeClient().resetAuthorization(uid: target)
            } catch {
                throw CLIExit(error)
            }
            print(client.json ? "true" : "reset: uid \(target) is notDetermined again")
        }
    }
}
