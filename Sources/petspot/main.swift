import Dispatch
import PetSpotKioskApp
import PetSpotLocationCLI
import PetSpotPOSIX
import PetSpotReportCLI

import Glibc

// The three client programs in one binary, so that they share one copy of
// the Swift runtime, Foundation's essentials, NIO and the rest: the Debian
// package installs it once, under each program's name (hard links, so that
// each process's /proc/PID/exe, which a policy rule may name, stays the
// program's own path). It runs the program its name says (the last path
// component of argv[0]), exactly as that program's own executable does.
//
// The daemon stays a binary of its own (petspot-locationd): in this one it
// would start with ~0.8 MiB more anonymous memory (the relocations of the
// clients' code, Hummingbird, async-http-client, BoringSSL) and ~2 MiB more
// of the file resident, on a device where it runs all the time.

/// Runs `main` as an `async` `@main` entry point would: a task on the main
/// actor, the main thread serving the main queue; exits 0 when it returns.
func runAsMain(_ main: @escaping @MainActor () async -> Void) -> Never {
    Task { @MainActor in
        await main()
        exit(0)
    }
    dispatchMain()
}

let name = CommandLine.arguments.first.flatMap { $0.split(separator: "/").last.map(String.init) } ?? ""
switch name {
case "petspot-location": runAsMain { await PetSpotLocationProgram.main() }
case "petspot-report": runAsMain { await PetSpotReportProgram.main() }
case "petspot-kiosk": runAsMain { await PetSpotKioskProgram.main() }
default:
    let usage = """
        petspot: the PetSpot client programs in one binary; run it as petspot-location, petspot-report
        or petspot-kiosk (a link of that name), not as \(name.isEmpty ? "petspot" : name).

        """
    StandardStreams.writeError(usage)
    exit(1)
}
