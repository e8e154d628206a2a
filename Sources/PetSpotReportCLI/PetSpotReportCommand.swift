import ArgumentParser

/// `petspot-report`: report-form tools for PetSpot kiosks.
struct PetSpotReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "petspot-report",
        abstract: "Report a found pet from a terminal (kiosk); deliver and inspect the outbox.",
        subcommands: [FoundCommand.self, SendCommand.self, OutboxCommand.self]
    )
}
