import ArgumentParser
import PetSpotLocationClient

/// Options every subcommand shares.
struct ClientOptions: ParsableArguments {
    @Option(name: .long, help: "The daemon's socket.")
    var socket: String = LocationClient.defaultSocketPath

    @Flag(name: .long, help: "Print the daemon's JSON instead of text.")
    var json = false

    func makeClient() -> LocationClient { LocationClient(socketPath: socket) }
}
