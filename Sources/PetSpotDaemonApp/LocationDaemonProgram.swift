import ArgumentParser
import Dispatch
import PetSpotDaemon

/// `petspot-locationd` as a program: what its executable runs, and the
/// multi-call `petspot` binary when called by that name.
///
/// Every task of the daemon runs on NIO's event loops, from the first: the
/// root task below prefers them (``EventLoopGroupTaskExecutor``), the
/// service group's tasks and the actors they visit follow it (SE-0417),
/// each connection's tasks prefer its own socket's loop, and every wait is
/// timed on the loops (``Sleeper/eventLoops(_:)``). Nothing reaches Swift's
/// default executor (libdispatch's global pool, whose first job starts a
/// monitor that wakes the process every second for good), and the same
/// holds in every build: NIO's loops are not installed as the global
/// executor (that hook works only with a dynamically linked runtime, so
/// tests would schedule unlike the statically linked release).
/// docs/ARCHITECTURE.md, "Executors", and IdleWakeupTests.
///
/// Tasks must not block a loop for long: the gpsd reader has its own thread,
/// user-database lookups run on NIO's thread pool, and remembered decisions
/// and the audit log are written (fsync) on a disk thread of their own.
/// Parse as `@main` would, then run the daemon in a task; the main thread parks.
public enum LocationDaemonProgram {
    /// Runs the daemon (or `--help`, `--version`) and exits; never returns.
    public static func main() -> Never {
        do {
            let command = try LocationDaemonCommand.parseAsRoot()
            if let daemon = command as? LocationDaemonCommand {
                Task(executorPreference: EventLoopGroupTaskExecutor.daemon) {
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
