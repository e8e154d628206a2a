import ArgumentParser
import Foundation

/// `petspot-bench`: petspot-locationd beside gpsd and the socket floor.
@main
struct PetSpotBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "petspot-bench",
        abstract: "Benchmark petspot-locationd against gpsd's ?POLL; and the Unix/TCP socket floor.",
        discussion: """
            Build everything in release first (scripts/bench does both), then run from the
            package root. Starts the daemon (release) on a temporary simulated source with a
            fresh fix every 100 ms, gpsd through gpsfake, and a floor server; runs a closed-loop
            location.get / ?POLL; load at each connection count; then 1000 watchers fan-out
            (the daemon, then a plain write-loop floor, with the reader's own CPU per line),
            RSS, and CPU while idle.
            """,
        subcommands: [Run.self, Micro.self, OutboxHarness.self, Floor.self, Relay.self, HandoffRelay.self],
        defaultSubcommand: Run.self)
}

extension PetSpotBench {
    /// Internal: the floor server, run as a child process of `run`.
    struct Floor: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "floor-server", abstract: "Serve a fixed JSON line per request line (the floor).",
            shouldDisplay: false)

        @Option(help: "Unix socket path.") var unix: String
        @Option(help: "Loopback TCP port.") var port: UInt16
        @Option(help: "Unix socket path of the fan-out floor (FanOutFloor).") var fanOutUnix: String?
        @Option(help: "Fan-out floor writer threads (the daemon has one event loop per core).")
        var writers: Int = ProcessInfo.processInfo.activeProcessorCount

        func run() throws {
            if let fanOutUnix {
                let writers = self.writers
                Thread { FanOutFloor.serve(fanOutUnix, writers: writers, interval: 0.1) }.start()
            }
            FloorServer.serve([.unix(unix), .tcp(port)])
        }
    }
}

extension PetSpotBench {
    /// Internal: the watch path's floor (``RelayFloor``), run as a child process of `run`.
    struct Relay: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "relay-floor", abstract: "Relay gpsd's TPVs to Unix-socket watchers (the watch floor).",
            shouldDisplay: false)

        @Option(help: "Unix socket path the watchers connect to.") var unix: String
        @Option(help: "gpsd's loopback TCP port.") var gpsdPort: UInt16

        func run() throws { RelayFloor.serve(unix, gpsdPort: gpsdPort) }
    }
}

extension PetSpotBench {
    /// Internal: the watch path's floor with the daemon's threads (``HandoffFloor``), run as a child process of `run`.
    struct HandoffRelay: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "handoff-floor",
            abstract: "Relay gpsd's TPVs to Unix-socket watchers through writer threads (the daemon-shaped floor).",
            shouldDisplay: false)

        @Option(help: "Unix socket path the watchers connect to.") var unix: String
        @Option(help: "gpsd's loopback TCP port.") var gpsdPort: UInt16
        @Option(help: "Writer threads (the daemon has one event loop per core).")
        var writers: Int = ProcessInfo.processInfo.activeProcessorCount

        func run() throws { HandoffFloor.serve(unix, gpsdPort: gpsdPort, writers: writers) }
    }
}
