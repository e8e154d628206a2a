import ArgumentParser
import Logging
import PetSpotDelivery
import PetSpotKioskConfiguration
import PetSpotOutbox
import ServiceLifecycle
import UnixSignals

/// `petspot-report send`: the delivery sender alone, for a station without the kiosk UI.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Deliver queued reports to the PetSpot backend.",
        discussion: """
            Sends the reports queued in the configuration's [outbox] to [delivery] endpoint \
            (SPEC §8) until stopped (SIGTERM, SIGINT). With --once it delivers what is pending, \
            retrying within one bounded pass (--within), and exits 0 when nothing is left \
            pending, 1 otherwise (rejected reports are not pending: see `petspot-report outbox`). \
            Only one sender runs per outbox.
            """
    )

    @OptionGroup var options: KioskConfigurationOption

    @Flag(help: "Deliver what is pending, then exit (0: nothing left pending, 1: some still pending).")
    var once = false

    @Option(help: "With --once: seconds the pass may take, retries included (1-86400).")
    var within: Double = 120

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel: Logger.Level = .info

    func validate() throws {
        guard (1...86_400).contains(within) else { throw ValidationError("--within must be between 1 and 86400") }
    }

    func run() async throws {
        let configuration = try options.load()
        guard let delivery = configuration.delivery else {
            StandardInput.writeError(
                "petspot-report: \(options.config) has no [delivery] table: there is nowhere to send to")
            throw ExitCode(1)
        }
        var logger = Logger(label: "petspot.delivery") { StreamLogHandler.standardError(label: $0) }
        logger.logLevel = logLevel
        do {
            _ = try BearerToken.load(from: delivery.tokenFile)
        } catch {
            StandardInput.writeError("petspot-report: \(error)")
            throw ExitCode(1)
        }
        if BearerToken.isWorldReadable(delivery.tokenFile) {
            logger.warning("the token file \(delivery.tokenFile) is readable by every user: chmod 0640 it")
        }
        let outbox = try openOutbox(configuration.outbox.path)
        let sender = DeliverySender(outbox: outbox, settings: delivery, logger: logger)
        if once {
            let result: DeliverySender.DrainResult
            do {
                result = try await sender.drain(within: within)
            } catch let error as DeliveryError {
                StandardInput.writeError("petspot-report: \(error)")
                throw ExitCode(1)
            }
            let summary = result.summary
            StandardInput.writeError(
                "petspot-report: \(summary.delivered) delivered, \(result.undelivered) pending, \(summary.rejected) rejected"
            )
            if result.undelivered > 0 { throw ExitCode(1) }
            return
        }
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: [.init(service: sender)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await group.run()
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
