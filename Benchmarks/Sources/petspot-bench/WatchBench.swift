import Foundation

/// Issue 28's steps: the watch path against gpsd direct (CPU per delivered
/// update), the latency the daemon adds, and wake-ups. One gpsd at a time,
/// fed by gpsfake with the same-information stream at each rate; every
/// process it measures is stopped before the next rate starts.
struct WatchBench {
    var daemonBinary: String
    /// This executable: the relay floor (``RelayFloor``) runs as its child.
    var ownPath: String
    /// Also measures ``HandoffFloor`` beside ``RelayFloor``.
    var handoffFloor = false
    var directory: String
    var port: UInt16
    /// Receiver rates, fixes per second.
    var rates: [Int]
    /// Watcher counts compared, daemon path against gpsd direct.
    var counts: [Int]
    /// The daemon path only (gpsd serves at most 64 clients); 0 skips it.
    var large: Int
    /// The rate and watcher counts of the latency steps.
    var latencyRate: Int
    var latencyCounts: [Int]
    /// Seconds per measured window at 1 Hz, and at faster rates.
    var slowWindow: Double
    var fastWindow: Double
    /// Seconds of each latency window (enough fixes for a p99).
    var latencyWindow: Double
    /// Seconds of each wake-up window.
    var wakeWindow: Double
    var logLevel: String
    var log: (String) -> Void

    /// Runs every step; a step that fails ends the run with what was measured before it kept in `report`.
    func run(into report: inout WatchReport) throws {
        for rate in rates {
            try runRate(rate, into: &report)
        }
        try runStatic(into: &report)
    }

    private func window(_ rate: Int) -> Double { rate <= 1 ? slowWindow : fastWindow }

    /// Connects `count` watchers, lets the first update through, then measures.
    private func measure(
        _ target: WatchTarget, count: Int, seconds: Double, processes: [ManagedProcess], daemon: DaemonHarness? = nil,
        referenceGpsdPort: UInt16? = nil
    ) throws -> WatchWindow {
        let pool = try WatcherPool(target: target, count: count, referenceGpsdPort: referenceGpsdPort)
        _ = try pool.measure(seconds: 1, processes: [])
        return try pool.measure(seconds: seconds, processes: processes, daemon: daemon)
    }

    private func runRate(_ rate: Int, into report: inout WatchReport) throws {
        let feed = "\(directory)/feed-\(rate)hz.nmea"
        try SameInformationLog.write(to: feed, seconds: 1800, rate: rate)
        log("watch path: gpsfake -n at \(rate) Hz (-c \(SameInformationLog.cycle(rate: rate))) on port \(port)")
        let gpsd = try GpsdHarness.start(
            log: feed, port: port, cycle: SameInformationLog.cycle(rate: rate), pin: nil, directory: directory,
            name: "receiver-\(rate)hz", readAlways: true)
        defer { gpsd.stop() }
        let seconds = window(rate)

        // gpsd direct: only the watchers are its clients.
        for count in counts {
            log("watch path: \(count) watchers on gpsd directly, \(rate) Hz, \(seconds) s")
            let measured = try measure(.gpsd(gpsd.port), count: count, seconds: seconds, processes: [gpsd.gpsd])
            report.rows.append(.init(rate: rate, watchers: count, path: .direct, window: measured))
        }
        if report.clientLimit == nil {
            log("watch path: gpsd's client limit")
            report.clientLimit = GpsdClientLimit.probe(port: gpsd.port)
        }

        // The daemon path: gpsd has one client, the daemon (stopped before the floor: one client at a time).
        do {
            log("watch path: starting the daemon on gpsd (port \(gpsd.port))")
            let daemon = try DaemonHarness.start(
                binary: daemonBinary, directory: directory, name: "watch-\(rate)hz", kind: "gpsd",
                maxClients: max(large + 64, 256), pin: nil, logLevel: logLevel, logFile: nil, gpsdPort: gpsd.port)
            defer { daemon.process.stop() }
            let both = [gpsd.gpsd, daemon.process]
            if rate == 1 {
                log("wake-ups: \(rate) Hz receiver, 0 watchers, \(wakeWindow) s")
                let idle = try WatcherPool(target: .daemon(daemon.socket), count: 0)
                _ = try idle.measure(seconds: 1, processes: [])
                let measured = try idle.measure(seconds: wakeWindow, processes: both, daemon: daemon)
                report.wake.append(.init(scenario: .receiver(rate: rate, watchers: 0), window: measured))
            }
            for count in counts + (large > 0 ? [large] : []) {
                log("watch path: \(count) watchers on the daemon, \(rate) Hz, \(seconds) s")
                let measured = try measure(
                    .daemon(daemon.socket), count: count, seconds: seconds, processes: both, daemon: daemon)
                report.rows.append(.init(rate: rate, watchers: count, path: .daemon, window: measured))
                if rate == 1, count == 10 {
                    report.wake.append(.init(scenario: .receiver(rate: rate, watchers: count), window: measured))
                }
            }
            if rate == latencyRate {
                for count in latencyCounts {
                    log(
                        "latency: \(count) watchers on the daemon + 1 direct gpsd client, \(rate) Hz, \(latencyWindow) s"
                    )
                    let measured = try measure(
                        .daemon(daemon.socket), count: count, seconds: latencyWindow, processes: both, daemon: daemon,
                        referenceGpsdPort: gpsd.port)
                    report.latency.append(.init(rate: rate, watchers: count, path: .daemon, window: measured))
                }
            }
            guard daemon.process.isRunning else { throw BenchError("the gpsd-source daemon died") }
        }
        // The floor: the least a relay can do (one thread, no parse), measured the same way.
        try runRelay(.floor, subcommand: "relay-floor", rate: rate, gpsd: gpsd, into: &report)
        // The same relay with the daemon's threads (a reader and a writer per core), if asked.
        if handoffFloor {
            try runRelay(.handoff, subcommand: "handoff-floor", rate: rate, gpsd: gpsd, into: &report)
        }
    }

    /// Measures a relay floor of this executable (`subcommand`, gpsd's only
    /// client while it runs) as the daemon is measured, its rows as `path`.
    private func runRelay(
        _ path: WatchReport.Path, subcommand: String, rate: Int, gpsd: GpsdHarness, into report: inout WatchReport
    ) throws {
        let seconds = window(rate)
        let relaySocket = "\(directory)/\(subcommand)-\(rate)hz.sock"
        let relay = try ManagedProcess(
            name: path.rawValue, executable: ownPath,
            arguments: [subcommand, "--unix", relaySocket, "--gpsd-port", String(gpsd.port)], pin: nil)
        defer { relay.stop() }
        try waitForSocket(relaySocket, of: relay)
        let relayed = [gpsd.gpsd, relay]
        for count in counts {
            log("watch path: \(count) watchers on the \(path.rawValue), \(rate) Hz, \(seconds) s")
            let measured = try measure(.daemon(relaySocket), count: count, seconds: seconds, processes: relayed)
            report.rows.append(.init(rate: rate, watchers: count, path: path, window: measured))
        }
        if rate == latencyRate {
            for count in latencyCounts {
                log(
                    "latency: \(count) watchers on the \(path.rawValue) + 1 direct gpsd client, \(rate) Hz, \(latencyWindow) s"
                )
                let measured = try measure(
                    .daemon(relaySocket), count: count, seconds: latencyWindow, processes: relayed,
                    referenceGpsdPort: gpsd.port)
                report.latency.append(.init(rate: rate, watchers: count, path: path, window: measured))
            }
        }
        guard relay.isRunning else { throw BenchError("the \(path.rawValue) died") }
    }

    /// Waits (at most 10 s) until `path` accepts a connection.
    private func waitForSocket(_ path: String, of process: ManagedProcess) throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline {
            guard process.isRunning else { throw BenchError("\(process.name) exited at start") }
            if let fd = Sockets.connect(.unix(path)) {
                close(fd)
                return
            }
            usleep(50_000)
        }
        throw BenchError("\(process.name) did not listen on \(path) within 10 s")
    }

    private func runStatic(into report: inout WatchReport) throws {
        log("wake-ups: static source")
        let daemon = try DaemonHarness.start(
            binary: daemonBinary, directory: directory, name: "watch-static", kind: "static", maxClients: 64,
            pin: nil, logLevel: logLevel, logFile: nil)
        defer { daemon.process.stop() }
        for count in [0, 10] {
            log("wake-ups: static source, \(count) watchers, \(wakeWindow) s")
            let measured = try measure(
                .daemon(daemon.socket), count: count, seconds: wakeWindow, processes: [daemon.process], daemon: daemon)
            report.wake.append(.init(scenario: .staticSource(watchers: count), window: measured))
        }
    }
}

/// The watch steps' figures and their tables.
struct WatchReport {
    enum Path: String {
        case direct = "gpsd direct"
        case daemon = "daemon"
        /// ``RelayFloor``: the least a relay between gpsd and the watchers can do.
        case floor = "relay floor"
        /// ``HandoffFloor``: the same with the daemon's threads (a reader, a writer per core).
        case handoff = "handoff floor"
    }

    struct Row {
        var rate: Int
        var watchers: Int
        var path: Path
        var window: WatchWindow
    }

    struct LatencyRow {
        var rate: Int
        var watchers: Int
        var path: Path
        var window: WatchWindow
    }

    enum Scenario {
        case receiver(rate: Int, watchers: Int)
        case staticSource(watchers: Int)
    }

    struct WakeRow {
        var scenario: Scenario
        var window: WatchWindow
    }

    var rows: [Row] = []
    var clientLimit: String?
    var latency: [LatencyRow] = []
    var wake: [WakeRow] = []
    /// Why the steps stopped early, if they did.
    var failure: String?

    /// The daemon's process in a window (the one that is not gpsd).
    private static func daemonName(_ window: WatchWindow) -> String? { window.cpu.keys.first { $0 != "gpsd" } }

    func render() -> String {
        var out = ""
        if let failure { out += "\n**The watch steps stopped early: \(failure)**\n" }
        if !rows.isEmpty {
            out += "\n### Watch path: CPU per delivered update, gpsd + daemon\n\n"
            let handoff = rows.contains { $0.path == .handoff }
            out += "| receiver | watchers | path | updates | updates/s | updates per fix per watcher | "
            out += "gpsd CPU ms | daemon (or floor) CPU ms | µs per update | (stat ticks) | ÷ direct | ÷ floor | "
            out += (handoff ? "÷ handoff floor | " : "") + "target | loadavg |\n"
            out += "|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
            out += (handoff ? "---:|" : "") + "---|---|\n"
            for row in rows {
                let window = row.window
                let daemon = Self.daemonName(window)
                let processes = ["gpsd"] + (daemon.map { [$0] } ?? [])
                let perUpdate = window.cpuPerUpdate(processes)
                let ticks = processes.reduce(Int64(0)) { $0 + (window.cpuTicks[$1] ?? 0) }
                var ratio = ""
                var target = ""
                if row.path != .direct,
                    let direct = rows.first(where: {
                        $0.path == .direct && $0.rate == row.rate && $0.watchers == row.watchers
                    }),
                    let mine = perUpdate, let theirs = direct.window.cpuPerUpdate(["gpsd"]), theirs > 0
                {
                    ratio = String(format: "**%.2f×**", mine / theirs)
                }
                // Issue 40: the daemon's CPU per update against the relay floor's in the same run
                // (and the hand-off floor's against it); the daemon's against the hand-off floor's.
                let against = { (floor: WatchReport.Path) -> Double? in
                    guard let mine = perUpdate,
                        let other = rows.first(where: {
                            $0.path == floor && $0.rate == row.rate && $0.watchers == row.watchers
                        }),
                        let relay = Self.daemonName(other.window),
                        let theirs = other.window.cpuPerUpdate(["gpsd", relay]), theirs > 0
                    else { return nil }
                    return mine / theirs
                }
                var floorRatio = ""
                var handoffRatio = ""
                if row.path == .daemon || row.path == .handoff, let value = against(.floor) {
                    floorRatio = String(format: "**%.2f×**", value)
                    if row.path == .daemon, row.watchers >= 10 {
                        target = value <= 1.25 ? "≤ 1.25× floor: met" : "≤ 1.25× floor: **missed**"
                    }
                }
                if row.path == .daemon, let value = against(.handoff) {
                    handoffRatio = String(format: "**%.2f×**", value)
                }
                let fixes = max(window.fixes, 1)
                out += "| \(row.rate) Hz | \(row.watchers) | \(row.path.rawValue) | \(window.updates) | "
                out += String(format: "%.1f | ", Double(window.updates) / window.seconds)
                out += String(format: "%.2f | ", Double(window.updates) / Double(fixes) / Double(max(row.watchers, 1)))
                out += Self.ms(window.cpu["gpsd"]) + " | " + (daemon.map { Self.ms(window.cpu[$0]) } ?? "–") + " | "
                out += (perUpdate.map { String(format: "%.1f", $0) } ?? "–") + " | "
                out +=
                    (window.updates > 0 ? String(format: "%.1f", Double(ticks) / 1000 / Double(window.updates)) : "–")
                out += " | \(ratio) | \(floorRatio) | " + (handoff ? "\(handoffRatio) | " : "")
                out += "\(target) | \(window.loadAverage) |\n"
            }
            out += "\nCPU is every thread's time on CPU over the window (/proc/PID/task/*/schedstat, ns); "
            out += "(stat ticks) is the same from utime + stime of /proc/PID/stat, in 10 ms ticks, too coarse at 1 Hz. "
            out += "An update is a TPV line (gpsd direct) or a `location.update` (daemon) received by a watcher. "
            out += "gpsd direct: the watchers are gpsd's only clients; daemon: gpsd's only client is the daemon; "
            out += "relay floor: gpsd's only client is the least a relay can be (one thread reads gpsd and writes each "
            out += "TPV's time in a `location.update`-sized line to every watcher, no parse: `RelayFloor`). "
            out += "No relay, the daemon included, can do better than the floor's ratio on this box.\n"
            if handoff {
                out += "handoff floor: the same relay with the daemon's threads (`HandoffFloor`): a reader thread "
                out += "hands each line to a writer per core (a queue, an eventfd wake-up, epoll_wait), each writing "
                out += "to its half of the watchers; no parse. No relay shaped like the daemon can do better.\n"
            }
        }
        if let clientLimit { out += "\ngpsd's client limit (MAX_CLIENTS): \(clientLimit).\n" }
        if !latency.isEmpty {
            out += "\n### Latency added: daemon watcher's arrival − the same fix's TPV on a direct gpsd connection\n\n"
            out += "| receiver | watchers | path | samples | p50 | p99 | max | p99 − floor's p99 | target | loadavg |\n"
            out += "|---:|---:|---|---:|---:|---:|---:|---:|---|---|\n"
            for row in latency {
                guard let added = row.window.added else { continue }
                let p99 = added.percentile(0.99)
                // Issue 40: p99 ≤ the floor's p99 + 100 µs (10 watchers and more), and ≤ 0.5 ms at 1 watcher.
                let floorP99 = latency.first {
                    $0.path == .floor && $0.rate == row.rate && $0.watchers == row.watchers
                }?.window.added?.percentile(0.99)
                var over = ""
                var target = "(floor)"
                if row.path == .handoff, let floorP99, !floorP99.isNaN, !p99.isNaN {
                    over = String(format: "%+.0f µs", p99 - floorP99)
                    target = "(handoff floor)"
                }
                if row.path == .daemon {
                    if let floorP99, !floorP99.isNaN, !p99.isNaN {
                        over = String(format: "%+.0f µs", p99 - floorP99)
                    }
                    if let handoffP99 = latency.first(where: {
                        $0.path == .handoff && $0.rate == row.rate && $0.watchers == row.watchers
                    })?.window.added?.percentile(0.99), !handoffP99.isNaN, !p99.isNaN {
                        over += String(format: " (%+.0f µs over the handoff floor)", p99 - handoffP99)
                    }
                    if p99.isNaN {
                        target = "–"
                    } else if row.watchers <= 1 {
                        target = p99 <= 500 ? "≤ 0.5 ms: met" : "≤ 0.5 ms: **missed**"
                    } else if let floorP99, !floorP99.isNaN {
                        target = p99 <= floorP99 + 100 ? "≤ floor + 100 µs: met" : "≤ floor + 100 µs: **missed**"
                    } else {
                        target = "(no floor row)"
                    }
                }
                out += "| \(row.rate) Hz | \(row.watchers) | \(row.path.rawValue) | \(added.count) | "
                out += "\(Self.microseconds(added.percentile(0.5))) | "
                out += "\(Self.microseconds(p99)) | \(Self.microseconds(added.percentile(1))) | \(over) | \(target)"
                out += " | \(row.window.loadAverage) |\n"
            }
            out += "\nOne thread of this benchmark reads the direct connection and every watcher with one epoll, "
            out += "stamping each read with CLOCK_MONOTONIC; with 60 watchers the later ones wait for the reads "
            out += "before them, as they would not in 60 processes.\n"
        }
        if !wake.isEmpty {
            out += "\n### Wake-ups: context switches (voluntary + nonvoluntary, every thread)\n\n"
            out += "| scenario | seconds | fixes | updates | daemon /s | daemon per fix | event loops per fix per loop "
            out += "| gpsd /s | gpsd per fix | target (daemon) | loadavg |\n"
            out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n"
            var threads = ""
            for row in wake {
                let window = row.window
                guard let daemon = Self.daemonName(window) else { continue }
                let daemonSwitches = Double(window.switchCount(daemon))
                let hasGpsd = window.switches["gpsd"] != nil
                let gpsdSwitches = Double(window.switchCount("gpsd"))
                let fixes = Double(window.fixes)
                let loopThreads = (window.switches[daemon] ?? [:]).filter { $0.key.hasPrefix("NIO-") }
                let loops = loopThreads.count
                let loopSwitches = Double(loopThreads.values.reduce(0, +))
                let name: String
                let target: String
                let perFix = fixes > 0 ? daemonSwitches / fixes : .nan
                switch row.scenario {
                case .receiver(let rate, let watchers) where watchers == 0:
                    name = "\(rate) Hz receiver, 0 watchers"
                    // Issue 40: the reader's own wake-up and nothing else (no libdispatch monitor).
                    target = "≤ 1 per fix: " + (perFix <= 1 ? "met" : "**missed**")
                case .receiver(let rate, let watchers):
                    name = "\(rate) Hz receiver, \(watchers) watchers"
                    target =
                        "≤ 1 per fix per event loop (\(loops) loops): "
                        + (perFix <= Double(loops) ? "met" : "**missed**")
                case .staticSource(let watchers) where watchers == 0:
                    name = "static source, 0 watchers (idle)"
                    target = "0 /s: " + (daemonSwitches == 0 ? "met" : "**missed**")
                case .staticSource(let watchers):
                    name = "static source, \(watchers) watchers"
                    target = "no target of its own (the static ticker: 1 fix a second while watched)"
                }
                out +=
                    "| \(name) | " + String(format: "%.1f", window.seconds)
                    + " | \(window.fixes) | \(window.updates) | "
                out += String(format: "%.2f | ", daemonSwitches / window.seconds)
                out += (fixes > 0 ? String(format: "%.2f", daemonSwitches / fixes) : "–") + " | "
                out +=
                    (fixes > 0 && loops > 0 ? String(format: "%.2f", loopSwitches / fixes / Double(loops)) : "–")
                    + " | "
                out += (hasGpsd ? String(format: "%.2f", gpsdSwitches / window.seconds) : "–") + " | "
                out += (hasGpsd && fixes > 0 ? String(format: "%.2f", gpsdSwitches / fixes) : "–") + " | "
                out += "\(target) | \(window.loadAverage) |\n"
                let byThread = (window.switches[daemon] ?? [:]).filter { $0.value > 0 }.sorted { $0.value > $1.value }
                threads += "- \(name): "
                threads +=
                    byThread.isEmpty
                    ? "none"
                    : byThread.map { thread in
                        let preempted = window.involuntary[daemon]?[thread.key] ?? 0
                        return "\(thread.key) \(String(format: "%.2f", Double(thread.value) / window.seconds))/s"
                            + (preempted > 0
                                ? String(format: " (%.2f/s preempted)", Double(preempted) / window.seconds) : "")
                    }
                    .joined(separator: ", ")
                threads += "\n"
            }
            out += "\nThe daemon's switches per second by thread (preempted: nonvoluntary, the thread was runnable "
            out += "and another took its CPU, e.g. a watcher it had just woken; the rest are waits):\n\n" + threads
        }
        return out
    }

    static func ms(_ nanos: Int64?) -> String { nanos.map { String(format: "%.1f", Double($0) / 1e6) } ?? "–" }
    static func microseconds(_ value: Double) -> String {
        value.isNaN ? "–" : value >= 1000 ? String(format: "%.2f ms", value / 1000) : String(format: "%.0f µs", value)
    }
}
