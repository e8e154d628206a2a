import ArgumentParser
import PetSpotLocation
import PetSpotLocationClient

/// `petspot-location status`: the daemon's health (no coordinates).
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Print the daemon's version, uptime, source state and counters (never a position).")

    @OptionGroup var client: ClientOptions

    func run() async throws {
        do {
            let status = try await client.makeClient().daemonStatus()
            print(client.json ? Output.json(status) : Output.describeStatus(status))
        } catch {
            throw CLIExit(error)
        }
    }
}
