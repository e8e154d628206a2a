import ArgumentParser
import Dispatch
import NIOCore
import NIOPosix
import PetSpotDaemonApp

// Each client's requests run on its socket's event loop through a task
// executor preference (SocketServer, EventLoopTaskExecutor), which actors
// it calls follow (SE-0417): a request goes from the socket to its answer
// without a thread switch. Beyond that, NIO's event loops are installed as
// the global executor where the runtime allows it: with a dynamically
// linked runtime (debug builds, tests). A statically linked runtime
// (release, `make deb`) keeps the hook NIO needs local, so the global pool
// stays Dispatch's there; only unstructured work (the sources' producers)
// runs on it. This must happen before the first task is enqueued, hence
// main.swift without a top-level `await` (which would make this an async
// main whose task is enqueued first). Tasks must not block: the gpsd reader
// has its own thread, user-database lookups run on NIO's thread pool, and
// remembered decisions are written (fsync) on a writer thread of their own.
_ = NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor()
// Parse as `@main` would, then run the daemon in a task; the main thread parks.
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
    }
} catch {
    LocationDaemonCommand.exit(withError: error)
}
