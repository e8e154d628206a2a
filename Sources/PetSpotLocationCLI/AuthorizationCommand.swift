import Glibc
import ArgumentParser
import PetSpotLocation
import PetSpotLocationClient
import PetSpotPOSIX
import PetSpotProtocol

/// `petspot-location authorization status|request|reset`.
struct AuthorizationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "authorization",
        abstract: "Show or ask for this client's location permission, or forget a client's decision (admins).",
        subcommands: [Status.self, Request.self, Reset.self])

    /// Prints the state `call` gets from the daemon (its JSON with `--json`).
    /// - Throws: ``CLIExit`` with ``CLIExit/notAuthorized`` unless the state is
    ///   `authorized`, or with the daemon's error.
    static func printState(
        _ client: ClientOptions, _ call: (LocationClient) async throws -> AuthorizationState
    ) async throws {
        do {
            let state = try await call(client.makeClient())
            print(client.json ? Output.json(WireCoding.encode(state)) : Output.describe(state))
            if state.status != .authorized { throw CLIExit(code: CLIExit.notAuthorized, message: "") }
        } catch let error as LocationError {
            throw CLIExit(error)
        }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Print this client's status: notDetermined, authorized, denied or restricted (exit 3 unless authorized)."
        )

        @OptionGroup var client: ClientOptions

        func run() async throws {
            try await AuthorizationCommand.printState(client) { try await $0.authorizationStatus() }
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
            try await AuthorizationCommand.printState(client) {
                try await $0.requestAuthorization(accuracy: AccuracyAuthorization(rawValue: accuracy) ?? .full)
            }
        }
    }

    struct Reset: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Forget the remembered decision of one user (admins only: [policy.admin], root by default).",
            discussion: """
                The user is notDetermined again (unless a rule decides for them) and is asked \
                at their next authorization request. Connections of that user lose any \
                allow-once grant. The daemon checks who you are from the socket (you \
                cannot claim to be root); the reset is audited.

                Examples:
                  sudo petspot-location authorization reset --user kiosk
                  sudo petspot-location authorization reset --uid 1001
                """)

        @OptionGroup var client: ClientOptions

        @Option(name: .long, help: "The user's numeric uid.")
        var uid: UInt32?

        @Option(name: .long, help: "The user's name (looked up on this machine).")
        var user: String?

        func validate() throws {
            guard (uid == nil) != (user == nil) else {
                throw ValidationError("give exactly one of --uid N or --user NAME")
            }
        }

        func run() async throws {
            let target: UInt32
            if let uid {
                target = uid
            } else if let user, let uid = UserDatabase.uid(ofUser: user) {
                target = uid
            } else {
                throw CLIExit(code: CLIExit.usage, message: "petspot-location: no user named \(user ?? "")")
            }
            do {
                try await client.makeClient().resetAuthorization(uid: target)
                print(client.json ? "true" : "forgot the decision of uid \(target)")
            } catch {
                throw CLIExit(error)
            }
        }
    }
}
