import Glibc
import ArgumentParser
import Foundation

extension PetSpotBench {
    /// The whole benchmark in one run.
    struct Run: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "run", abstract: "Run the full benchmark and print the table.")

        @Option(help: "Connection counts, comma-separated.")
        var connections: String = "1,8,64"
        @Option(help: "Seconds per load step, warm-up included.")
        var duration: Double = 6
        @Option(help: "Warm-up seconds at the start of each step (not counted).")
        var warmup: Double = 1
        @Option(help: "The daemon binary (default: petspot-locationd beside this executable).")
        var daemon: String?
        @Option(help: "The daemon's --log-level.")
        var daemonLogLevel: String = "info"
        @Option(help: "Capture gpsfake replays (looped).")
        var gpsdLog: String = "/work/shared/gps-logs/ublox-neo-m8n.log"
        @Option(help: "gpsfake -c: seconds between sentences.")
        var gpsfakeCycle: Double = 0.1
        @Option(help: "gpsd's loopback TCP port (the same-information gpsd takes the next one).")
        var gpsdPort: UInt16 = 29_470
        @Flag(help: "Skip the same-information gpsd (GGA+GSA+RMC at a fixed position once a second).")
        var noSameInformationGpsd = false
        @Option(help: "The floor server's TCP port.")
        var floorPort: UInt16 = 29_480
        @Option(help: "Watchers in the fan-out step (0 skips it).")
        var watchers: Int = 1000
        @Option(help: "Fixes measured in the fan-out step.")
        var fanOutFixes: Int = 50
        @Option(help: "Seconds of the idle CPU measurement (0 skips it).")
        var idleSeconds: Double = 10
        @Flag(help: "Skip gpsd (no gpsfake).")
        var noGpsd = false
        @Flag(help: "Skip the floor server.")
        var noFloor = false
        @Option(
            help: ArgumentHelp(
                "How load-generator threads wait for answers, comma-separated: poll (poll(2) then read, as event-loop clients do), read (a blocking read).",
                discussion:
                    "The first runs every target; each further one runs again the daemon and the same-information gpsd only."
            ))
        var clientWait: String = "poll,read"
        @Option(help: "Pin servers to these CPUs (taskset -c) and the load generator to --pin-client.")
        var pinServer: String?
        @Option(help: "CPUs for the load generator when --pin-server is given.")
        var pinClient: String = "1"

        @Option(
            help: ArgumentHelp(
                "A second daemon binary (an older release) measured beside --daemon in every load step.",
                discussion: "Its rows are 'petspot-locationd (reference)'; the summary gives new ÷ reference."))
        var referenceDaemon: String?
        @Flag(help: "Skip the watch-path, latency and wake-up steps (issue 28).")
        var noWatch = false
        @Flag(help: "Only the watch-path, latency and wake-up steps (no request path, fan-out or idle).")
        var onlyWatch = false
        @Option(help: "Watch path: receiver rates in fixes per second, comma-separated.")
        var watchRates: String = "1,10"
        @Option(help: "Watch path: watcher counts compared with gpsd direct, comma-separated (gpsd serves ≤ 64).")
        var watchCounts: String = "1,10,60"
        @Option(help: "Watch path: watchers on the daemon only (0 skips it).")
        var watchLarge: Int = 1000
        @Option(help: "Watch path: seconds per window at 1 Hz.")
        var watchSeconds: Double = 15
        @Option(help: "Watch path: seconds per window at faster rates.")
        var watchSecondsFast: Double = 8
        @Option(help: "Latency: watcher counts (at the fastest rate), comma-separated.")
        var latencyCounts: String = "1,60"
        @Option(help: "Latency: seconds per window.")
        var latencySeconds: Double = 20
        @Option(help: "Wake-ups: seconds per window.")
        var wakeSeconds: Double = 15
        @Flag(help: "Watch path: also measure the floor with the daemon's threads (a reader, a writer per core).")
        var handoffFloor = false
        @Option(help: "The watch path's gpsd port.")
        var watchGpsdPort: UInt16 = 29_472

        func run() throws {
            let fileLimit = Sockets.raiseFileLimit()
            let ownPath =
                (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0]
            let binDirectory = (ownPath as NSString).deletingLastPathComponent
            let daemonBinary = daemon ?? binDirectory + "/petspot-locationd"
            guard FileManager.default.isExecutableFile(atPath: daemonBinary) else {
                throw BenchError(
                    "no daemon at \(daemonBinary): build it (swift build -c release --product petspot-locationd in the package root) and pass --daemon, or use scripts/bench"
                )
            }
            if let pinServer {
                let pin = Process()
                pin.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
                pin.arguments = ["-a", "-p", "-c", pinClient, String(getpid())]
                pin.standardOutput = FileHandle.nullDevice
                try pin.run()
                pin.waitUntilExit()
                log("pinned: servers on CPU \(pinServer), load generator on CPU \(pinClient)")
            }
            var template = Array((NSTemporaryDirectory() + "petspot-bench-XXXXXX").utf8CString)
            guard let made = mkdtemp(&template) else { throw BenchError("mkdtemp failed: errno \(errno)") }
            let directory = String(cString: made)
            defer { try? FileManager.default.removeItem(atPath: directory) }  // runs after the processes stop
            log("work directory \(directory); RLIMIT_NOFILE \(fileLimit); \(Self.loadAverage())")

            var report = Report(command: CommandLine.arguments.joined(separator: " "))
            report.loadBefore = Self.loadAverage()

            if !onlyWatch {
                try requestPath(into: &report, directory: directory, daemonBinary: daemonBinary, ownPath: ownPath)
            }
            if !noWatch {
                let list = { (text: String) in
                    text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
                }
                let rates = list(watchRates)
                let watch = WatchBench(
                    daemonBinary: daemonBinary, ownPath: ownPath, handoffFloor: handoffFloor, directory: directory,
                    port: watchGpsdPort,
                    rates: rates,
                    counts: list(watchCounts), large: watchLarge, latencyRate: rates.max() ?? 10,
                    latencyCounts: list(latencyCounts), slowWindow: watchSeconds, fastWindow: watchSecondsFast,
                    latencyWindow: latencySeconds, wakeWindow: wakeSeconds, logLevel: daemonLogLevel,
                    log: { self.log($0) })
                var measured = WatchReport()
                do {
                    try watch.run(into: &measured)
                } catch {
                    log("watch steps failed: \(error)")
                    measured.failure = "\(error)"
                }
                report.watch = measured
            }
            report.loadAfter = Self.loadAverage()
            print(report.render())
        }

        /// The request path (closed-loop load against the daemon, the floor and gpsd), the fan-out and idle steps.
        private func requestPath(
            into report: inout Report, directory: String, daemonBinary: String, ownPath: String
        ) throws {
            let counts = connections.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            let waits = try clientWait.split(separator: ",").map { name in
                guard let wait = ClientWait(rawValue: name.trimmingCharacters(in: .whitespaces)) else {
                    throw BenchError("--client-wait: \(name) is neither poll nor read")
                }
                return wait
            }
            // The floor.
            var floor: ManagedProcess?
            if !noFloor {
                floor = try ManagedProcess(
                    name: "floor", executable: ownPath,
                    arguments: [
                        "floor-server", "--unix", "\(directory)/floor.sock", "--port", String(floorPort),
                        "--fan-out-unix", "\(directory)/floor-fan-out.sock",
                    ],
                    pin: pinServer)
                usleep(300_000)
            }
            defer { floor?.stop() }

            // The daemon, and an idle static-source daemon for the CPU baseline.
            log("starting \(daemonBinary)")
            let daemonHarness = try DaemonHarness.start(
                binary: daemonBinary, directory: directory, name: "daemon", kind: "simulated",
                maxClients: max(watchers + 64, 256), pin: pinServer, logLevel: daemonLogLevel, logFile: nil)
            defer { daemonHarness.process.stop() }
            var reference: DaemonHarness?
            if let referenceDaemon {
                guard FileManager.default.isExecutableFile(atPath: referenceDaemon) else {
                    throw BenchError("--reference-daemon: no executable at \(referenceDaemon)")
                }
                log("starting the reference daemon \(referenceDaemon)")
                reference = try DaemonHarness.start(
                    binary: referenceDaemon, directory: directory, name: "reference", kind: "simulated",
                    maxClients: 256, pin: pinServer, logLevel: daemonLogLevel, logFile: nil)
            }
            defer { reference?.process.stop() }

            var gpsd: GpsdHarness?
            var sameGpsd: GpsdHarness?
            if !noGpsd {
                log("starting gpsfake on port \(gpsdPort) with \(gpsdLog)")
                gpsd = try GpsdHarness.start(
                    log: gpsdLog, port: gpsdPort, cycle: gpsfakeCycle, pin: pinServer, directory: directory)
                if !noSameInformationGpsd {
                    // What the daemon answers, no more: TPV plus a SKY without satellites.
                    let log = "\(directory)/same-information.log"
                    try SameInformationLog.write(to: log)
                    self.log("starting gpsfake on port \(gpsdPort + 1) with the same-information stream")
                    sameGpsd = try GpsdHarness.start(
                        log: log, port: gpsdPort + 1, cycle: SameInformationLog.cycle(), pin: pinServer,
                        directory: directory, name: "same")
                }
            }
            defer {
                gpsd?.stop()
                sameGpsd?.stop()
            }

            // Idle: RSS and CPU with no clients.
            if idleSeconds > 0 {
                let quiet = try DaemonHarness.start(
                    binary: daemonBinary, directory: directory, name: "static", kind: "static", maxClients: 16,
                    pin: pinServer, logLevel: daemonLogLevel, logFile: nil)
                defer { quiet.process.stop() }
                log("idle for \(idleSeconds) s")
                let processes = [daemonHarness.process, quiet.process] + (gpsd.map { [$0.gpsd] } ?? [])
                let before = processes.map { $0.cpuTicks ?? 0 }
                Thread.sleep(forTimeInterval: idleSeconds)
                let after = processes.map { $0.cpuTicks ?? 0 }
                let seconds = Double(after[0] - before[0]) / ManagedProcess.ticksPerSecond
                report.idle = Report.Idle(
                    seconds: idleSeconds,
                    simulatedCPU: seconds,
                    staticCPU: Double(after[1] - before[1]) / ManagedProcess.ticksPerSecond,
                    gpsdCPU: gpsd == nil ? nil : Double(after[2] - before[2]) / ManagedProcess.ticksPerSecond,
                    daemonRSS: daemonHarness.process.residentKiB, staticRSS: quiet.process.residentKiB,
                    gpsdRSS: gpsd?.gpsd.residentKiB)
            }

            // Closed-loop load.
            for count in counts {
                for (round, wait) in waits.enumerated() {
                    var targets: [(String, Endpoint, Exchange, ManagedProcess?)] = []
                    let all = round == 0
                    if all, !noFloor {
                        targets.append(("floor unix", .unix("\(directory)/floor.sock"), .locationGet, floor))
                    }
                    targets.append(
                        ("petspot-locationd", .unix(daemonHarness.socket), .locationGet, daemonHarness.process))
                    if let reference {
                        targets.append(
                            (Report.referenceTarget, .unix(reference.socket), .locationGet, reference.process))
                    }
                    if all, !noFloor { targets.append(("floor tcp", .tcp(floorPort), .locationGet, floor)) }
                    if all, let gpsd {
                        targets.append(("gpsd ?POLL; (busy capture)", .tcp(gpsd.port), .gpsdPoll, gpsd.gpsd))
                    }
                    if let sameGpsd {
                        targets.append(
                            ("gpsd ?POLL; (same information)", .tcp(sameGpsd.port), .gpsdPoll, sameGpsd.gpsd))
                    }
                    for (name, endpoint, exchange, server) in targets {
                        log("\(name) × \(count) connections, client wait \(wait.rawValue), \(duration) s")
                        // The server's CPU over the whole step, warm-up included, per answer at the measured rate.
                        let cpuBefore = server?.cpuTicks
                        let result = LoadGenerator(
                            endpoint: endpoint, exchange: exchange, connections: count, warmup: warmup,
                            duration: duration, wait: wait
                        ).run()
                        var cpuPerAnswer: Double?
                        if let cpuBefore, let cpuAfter = server?.cpuTicks, result.perSecond > 0 {
                            let cpu = Double(cpuAfter - cpuBefore) / ManagedProcess.ticksPerSecond
                            cpuPerAnswer = cpu / (result.perSecond * duration)
                        }
                        report.load.append(
                            Report.Step(
                                target: name, connections: count, wait: wait, result: result,
                                cpuPerAnswer: cpuPerAnswer))
                        guard daemonHarness.process.isRunning else { throw BenchError("the daemon died under load") }
                    }
                }
            }
            report.loadedRSS = daemonHarness.process.residentKiB

            // Fan-out.
            if watchers > 0 {
                log("fan-out: \(watchers) watchers, \(fanOutFixes) fixes")
                report.fanOut = try FanOut(socket: daemonHarness.socket, watchers: watchers, fixes: fanOutFixes)
                    .run(daemon: daemonHarness.process)
                if let floor {
                    log("fan-out floor: \(watchers) watchers, \(fanOutFixes) lines each")
                    report.fanOutFloor = try FanOut(
                        socket: "\(directory)/floor-fan-out.sock", watchers: watchers, fixes: fanOutFixes
                    ).run(daemon: floor)
                }
            }
        }

        private func log(_ message: String) {
            FileHandle.standardError.write(Data("petspot-bench: \(message)\n".utf8))
        }

        static func loadAverage() -> String {
            let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? ""
            return "loadavg " + text.split(separator: " ").prefix(3).joined(separator: " ")
        }
    }
}
