import Glibc
import ArgumentParser
import FoundationEssentials
import PetSpotKioskConfiguration
import PetSpotOutbox

/// `petspot-report outbox`: the operator's view of the delivery queue.
struct OutboxCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "outbox",
        abstract: "Show the delivery queue; retry or discard a report.",
        subcommands: [List.self, Retry.self, Discard.self],
        defaultSubcommand: List.self
    )
}

extension OutboxCommand {
    /// `outbox [list]`: counts, then one line per report (no personal data).
    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "list",
            abstract: "List queued reports: state, attempts, next attempt, last error.",
            discussion: """
                Shows every report not yet delivered (pending, delivering, rejected) and the 10 \
                most recently delivered; --all shows every report. --json prints \
                {"outbox", "summary", "reports"} with every report.
                """
        )

        @OptionGroup var options: KioskConfigurationOption
        @Flag(help: "JSON output.") var json = false
        @Flag(help: "Every delivered report too.") var all = false

        func run() async throws {
            let outbox = try openOutbox(try options.load().outbox.path)
            do {
                let summary = try await outbox.summary()
                let entries = try await outbox.entries(limit: 100_000)
                if json {
                    print(try OutboxListing.json(directory: outbox.directory, summary: summary, entries: entries))
                } else {
                    print(
                        OutboxListing.text(
                            directory: outbox.directory, summary: summary, entries: entries, all: all, now: Date()))
                }
            } catch let error as OutboxError {
                StandardInput.writeError("petspot-report: \(error)")
                throw ExitCode(1)
            }
        }
    }

    /// `outbox retry ID`.
    struct Retry: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retry",
            abstract: "Send a rejected (or waiting) report again at the next chance.",
            discussion:
                "ID is the report id or a unique prefix of it (at least 4 characters). Root or the outbox's owner only."
        )

        @OptionGroup var change: OperatorChange

        func run() async throws {
            try await change.run { outbox, id in "\(try await outbox.retry(id).id): pending, due now" }
        }
    }

    /// `outbox discard ID`.
    struct Discard: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "discard",
            abstract: "Delete a report and its photo from the station for good.",
            discussion:
                "ID is the report id or a unique prefix of it (at least 4 characters). Root or the outbox's owner only."
        )

        @OptionGroup var change: OperatorChange

        func run() async throws {
            try await change.run { outbox, id in
                let entry = try await outbox.entry(id)
                try await outbox.discard(id)
                return "\(entry.id): discarded (it was \(entry.state.rawValue))"
            }
        }
    }
}

/// What `outbox retry` and `outbox discard` share: the configuration and
/// the report id, the operator check, one error line on failure.
struct OperatorChange: ParsableArguments {
    @OptionGroup var options: KioskConfigurationOption
    @Argument(help: "The report id (or a unique prefix).") var id: String

    /// Opens the outbox as its operator and prints what `change` returns;
    /// its error is one line on standard error and exit status 1.
    func run(_ change: (Outbox, String) async throws -> String) async throws {
        let outbox = try openOutbox(try options.load().outbox.path)
        try requireOperator(outbox)
        do {
            print(try await change(outbox, id))
        } catch {
            StandardInput.writeError("petspot-report: \(error)")
            throw ExitCode(1)
        }
    }
}

/// Changing the queue is for root and the kiosk user (the database's owner).
private func requireOperator(_ outbox: Outbox) throws {
    var status = stat()
    let uid = geteuid()
    guard uid == 0 || (stat(outbox.databasePath, &status) == 0 && status.st_uid == uid) else {
        StandardInput.writeError(
            "petspot-report: only root or the owner of \(outbox.databasePath) (the kiosk user) may change the outbox")
        throw ExitCode(1)
    }
}
