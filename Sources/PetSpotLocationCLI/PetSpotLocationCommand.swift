import ArgumentParser

import Glibc
import FoundationEssentials
import PetSpotPOSIX
import PetSpotLocation

/// `petspot-location`: ask the PetSpot location daemon where this device is.
struct PetSpotLocationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "petspot-location",
        abstract: "Ask the PetSpot location daemon (petspot-locationd) where this device is.",
        discussion: """
            The daemon decides who may see the location from the kernel's identity of the
            caller (its uid, groups, systemd unit, executable), never from anything this
            command says. Human-readable output by default; --json prints what the daemon sent.

            Exit codes:
              0  success
              1  usage error
              3  not authorized (notDetermined, denied or restricted: see 'authorization')
              4  no location (locationUnknown or sourceUnavailable)
              5  daemon unreachable (is petspot-locationd running? right --socket?)

            Examples:
              petspot-location get --json
              petspot-location get --max-age 0 --desired-accuracy 20 --timeout 30
              petspot-location watch --distance-filter 10 --count 5
              petspot-location authorization request --accuracy reduced
              petspot-location status
              petspot-location audit --file /var/lib/petspot-locationd/audit.jsonl
            """,
        subcommands: [
            GetCommand.self, WatchCommand.self, StatusCommand.self, AuthorizationCommand.self, AuditCommand.self,
            CallCommand.self,
        ]
    )

    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let exit as CLIExit {
            if !exit.message.isEmpty { StandardStreams.writeError(exit.message + "\n") }
            terminate(exit.code)
        } catch {
            // ArgumentParser: help and version exit 0, everything else is a usage error (1).
            let code = exitCode(for: error)
            if code == .success {
                print(fullMessage(for: error))
                terminate(0)
            }
            StandardStreams.writeError(fullMessage(for: error) + "\n")
            terminate(1)
        }
    }
}

/// The process's end with `code` (C's `exit`: a command's own `exit` is ArgumentParser's).
private func terminate(_ code: Int32) -> Never {
    exit(code)
}
