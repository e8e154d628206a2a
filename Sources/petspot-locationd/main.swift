import ArgumentParser
import NIOCore
import NIOPosix

// Swift Concurrency runs on NIO's event loops: a request then goes from the
// socket to its answer without a thread switch between NIO's threads and
// the concurrency pool (on 2 cores those switches cost more than the work).
// Must happen before the first task is enqueued, hence main.swift rather
// than `@main`. This requires tasks not to block: the gpsd reader has its
// own thread; two short blocking calls remain on tasks and so on an event
// loop: the user-database lookups when a client connects (slow only with a
// network NSS such as LDAP) and the fsync of a remembered decision. Moving
// them to NIOThreadPool is the known next step.
_ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
// Parse as `@main` would, then run the daemon. `serve()` is called by name:
// a bare `run()` on the parsed command could resolve to ParsableCommand's
// synchronous default, which only prints the help.
do {
    let command = try LocationDaemonCommand.parseAsRoot()
    if let daemon = command as? LocationDaemonCommand {
        try await daemon.serve()
    } else {
        var other = command
        try other.run()  // --help, --version
    }
} catch {
    LocationDaemonCommand.exit(withError: error)
}
