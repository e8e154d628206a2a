import ArgumentParser
import Dispatch

/// `petspot-locationd` as a program: what its executable runs, and the
/// multi-call `petspot` binary when called by that name.
///
/// Each connection is served on its socket's event loop: its handler there,
/// and the tasks that answer its slower requests with that loop as their
/// executor preference (ConnectionHandler, EventLoopTaskExecutor), which the
/// actors they call follow (SE-0417). Everything else runs on the default
/// global executor, in every build: NIO's loops are not installed as the
/// global executor (that hook works only with a dynamically linked runtime,
/// so debug builds and tests would schedule differently from the statically
/// linked release the device runs). Tasks must not block: the gpsd reader has
/// its own thread, user-database lookups run on NIO's thread pool, and
/// remembered decisions are written (fsync) on a writer thread of their own.
/// Parse as `@main` would, then run the daemon in a task; the main thread parks.
public enum LocationDaemonProgram {
    /// Runs the daemon (or `--help`, `--version`) and exits; never returns.
    /// On the main actor, as the top-level code of a `main.swift` is.
    @MainActor public static func main() -> Never {
        do {
            let command = try LocationDaemonCommand.parseAsRoot()
            if let daemon = command as? LocationDaemonCommand {
                Task {
                    do {
                        try await daemon.serve()
                        LocationDaemonCommand.exit()
                    } catch {
                        LocationDaemonCommand.exit(withError: error)
                    }
                }
                dispatchMain()
            } else {
                var other = command
                try other.run()  // --help, --version
                LocationDaemonCommand.exit()
            }
        } catch {
            LocationDaemonCommand.exit(withError: error)
        }
    }
}
