import ArgumentParser
import PetSpotConfiguration
import PetSpotKioskConfiguration
import PetSpotOutbox

/// `--config FILE`: the kiosk's configuration (config/kiosk.toml).
struct KioskConfigurationOption: ParsableArguments {
    @Option(name: .long, help: "The kiosk configuration (outbox path, delivery).")
    var config: String = KioskConfigurationLoader.defaultPath

    /// The loaded configuration; errors are printed and end the command with status 1.
    func load() throws -> KioskConfiguration { try loadKioskConfiguration(config) }
}

/// The kiosk configuration at `path`; errors are printed and end the command with status 1.
func loadKioskConfiguration(_ path: String) throws -> KioskConfiguration {
    do {
        return try KioskConfigurationLoader.load(path: path)
    } catch {
        StandardInput.writeError(error.description)
        throw ExitCode(1)
    }
}

/// Opens the outbox, printing what happened at opening (a corrupt database
/// moved aside, imported files) to standard error.
func openOutbox(_ directory: String) throws -> Outbox {
    do {
        let outbox = try Outbox.open(directory: directory)
        for note in outbox.openingNotes { StandardInput.writeError("petspot-report: outbox \(directory): \(note)") }
        return outbox
    } catch {
        StandardInput.writeError("petspot-report: cannot open the outbox \(directory): \(error)")
        throw ExitCode(1)
    }
}
