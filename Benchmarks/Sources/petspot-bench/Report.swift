import Foundation

/// The benchmark's figures and their rendering as Markdown tables.
struct Report {
    struct Step {
        var target: String
        var connections: Int
        /// How the load generator waited for answers.
        var wait: ClientWait
        var result: LoadResult
        /// The server process's CPU time per answer (`utime + stime` over the step ÷ answers).
        var cpuPerAnswer: Double?
    }

    struct Idle {
        var seconds: Double
        var simulatedCPU: Double
        var staticCPU: Double
        var gpsdCPU: Double?
        var daemonRSS: Int?
        var staticRSS: Int?
        var gpsdRSS: Int?
    }

    var command: String
    var loadBefore = ""
    var loadAfter = ""
    var load: [Step] = []
    var idle: Idle?
    var loadedRSS: Int?
    var fanOut: FanOutResult?
    /// The same step against the fan-out floor (``FanOutFloor``).
    var fanOutFloor: FanOutResult?
    /// Issue 28's watch-path, latency and wake-up steps.
    var watch: WatchReport?

    /// The load rows of `--reference-daemon`.
    static let referenceTarget = "petspot-locationd (reference)"

    func render() -> String {
        var out = "## petspot-bench\n\n"
        out +=
            "`\(command)` — \(loadBefore) before, \(loadAfter) after; \(ProcessInfo.processInfo.activeProcessorCount) CPUs\n\n"
        if !load.isEmpty {
            out += "| target | conns | client wait | req/s | p50 µs | p99 µs | p99.9 µs | errors | daemon ÷ this "
            out += "| CPU µs/answer | daemon CPU ÷ this |\n"
            out += "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n"
        }
        for (index, step) in load.enumerated() {
            // The daemon step of the same round (the latest one at this connection count and client wait).
            func isRoundDaemon(_ other: Step) -> Bool {
                other.target == "petspot-locationd" && other.connections == step.connections && other.wait == step.wait
            }
            let daemon = load[...index].last(where: isRoundDaemon) ?? load.first(where: isRoundDaemon)
            var ratio = ""
            if let daemon, step.target != daemon.target, step.result.perSecond > 0 {
                ratio = String(format: "%.2f×", daemon.result.perSecond / step.result.perSecond)
            }
            let latencies = step.result.latencies
            out += "| \(step.target) | \(step.connections) | \(step.wait.rawValue) | "
            out += "\(Int(step.result.perSecond.rounded())) | "
            out += "\(Self.micro(latencies.percentile(0.5))) | \(Self.micro(latencies.percentile(0.99))) | "
            var cpu = ""
            var cpuRatio = ""
            if let perAnswer = step.cpuPerAnswer {
                cpu = String(format: "%.1f", perAnswer * 1e6)
                if let daemonCPU = daemon?.cpuPerAnswer, step.target != daemon?.target, perAnswer > 0 {
                    cpuRatio = String(format: "%.2f×", daemonCPU / perAnswer)
                }
            }
            out += "\(Self.micro(latencies.percentile(0.999))) | \(step.result.errors) | \(ratio) | "
            out += "\(cpu) | \(cpuRatio) |\n"
        }
        out += renderReference()
        if let fanOut {
            out +=
                "\n| fan-out | watchers | fixes (all delivered) | incomplete | emission→last p50 | p99 | max | first→last p50 | p99 | server CPU per line | reader CPU per line |\n"
            out += "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n"
            for (name, result) in [("petspot-locationd location.watch", fanOut)]
                + (fanOutFloor.map { [("floor (write loop)", $0)] } ?? [])
            {
                out += "| \(name) | \(result.watchers) | \(result.complete) | \(result.incomplete) | "
                out += "\(Self.milli(result.toLast.percentile(0.5))) | \(Self.milli(result.toLast.percentile(0.99))) | "
                out += "\(Self.milli(result.toLast.percentile(1))) | \(Self.milli(result.spread.percentile(0.5))) | "
                out += "\(Self.milli(result.spread.percentile(0.99))) | "
                out += "\(result.cpuPerUpdate.map { String(format: "%.2f µs", $0) } ?? "?") | "
                out += "\(result.readerCPUPerLine.map { String(format: "%.2f µs", $0) } ?? "?") |\n"
            }
            out += "\nEmission is the fix's `timestamp`: for the daemon the wall clock when the simulated source made "
            out += "it, rounded down to the millisecond (emission→last over-states by up to 1 ms); for the floor the "
            out += "exact tick. Server CPU per line is user + system time per delivered line; the reader (this "
            out += "benchmark, one epoll thread) runs on the same cores, so 1000 lines cost the box about "
            out += "1000 × (server + reader) of CPU per fix, spread over its cores.\n"
        }
        if idle != nil || loadedRSS != nil || fanOut != nil { out += "\n| resources | value |\n|---|---:|\n" }
        if let idle {
            out += "| daemon RSS idle (simulated source, no clients) | \(Self.mib(idle.daemonRSS)) |\n"
            out += "| daemon RSS idle (static source) | \(Self.mib(idle.staticRSS)) |\n"
            if let gpsdRSS = idle.gpsdRSS { out += "| gpsd RSS (fed by gpsfake) | \(Self.mib(gpsdRSS)) |\n" }
            out += "| daemon CPU idle \(Int(idle.seconds)) s, simulated source (10 fixes/s) | "
            out += String(format: "%.2f s (%.2f%%) |\n", idle.simulatedCPU, 100 * idle.simulatedCPU / idle.seconds)
            out += "| daemon CPU idle \(Int(idle.seconds)) s, static source | "
            out += String(format: "%.2f s (%.2f%%) |\n", idle.staticCPU, 100 * idle.staticCPU / idle.seconds)
            if let cpu = idle.gpsdCPU {
                out += String(
                    format: "| gpsd CPU same %d s (gpsfake feeding, no client) | %.2f s |\n", Int(idle.seconds), cpu)
            }
        }
        if let loadedRSS { out += "| daemon RSS after the load steps | \(Self.mib(loadedRSS)) |\n" }
        if let fanOut { out += "| daemon RSS with \(fanOut.watchers) watchers | \(Self.mib(fanOut.residentKiB)) |\n" }
        if let watch { out += watch.render() }
        return out
    }

    /// Held, not pushed: the daemon against `--reference-daemon` in the same round.
    private func renderReference() -> String {
        let pairs = load.enumerated().compactMap { index, step -> (Step, Step)? in
            guard step.target == Self.referenceTarget else { return nil }
            let daemon = load[..<index].last {
                $0.target == "petspot-locationd" && $0.connections == step.connections && $0.wait == step.wait
            }
            return daemon.map { ($0, step) }
        }
        guard !pairs.isEmpty else { return "" }
        var out = "\n| held: new daemon ÷ --reference-daemon | conns | client wait | req/s new | req/s old | new ÷ old "
        out += "| CPU µs/answer new | old | new ÷ old | CPU ≤ 1.05× old |\n"
        out += "|---|---:|---|---:|---:|---:|---:|---:|---:|---|\n"
        for (new, old) in pairs {
            out +=
                "| petspot-locationd | \(new.connections) | \(new.wait.rawValue) | \(Int(new.result.perSecond.rounded())) | "
            out += "\(Int(old.result.perSecond.rounded())) | "
            out +=
                old.result.perSecond > 0
                ? String(format: "%.2f× | ", new.result.perSecond / old.result.perSecond) : "– | "
            if let mine = new.cpuPerAnswer, let theirs = old.cpuPerAnswer, theirs > 0 {
                let ratio = mine / theirs
                out += String(format: "%.1f | %.1f | **%.2f×** | ", mine * 1e6, theirs * 1e6, ratio)
                out += ratio <= 1.05 ? "met |\n" : "**missed** |\n"
            } else {
                out += "– | – | – | – |\n"
            }
        }
        return out
    }

    static func micro(_ value: Double) -> String { value.isNaN ? "–" : String(format: "%.0f", value) }
    static func milli(_ microseconds: Double) -> String {
        microseconds.isNaN ? "–" : String(format: "%.2f ms", microseconds / 1000)
    }
    static func mib(_ kib: Int?) -> String { kib.map { String(format: "%.1f MiB", Double($0) / 1024) } ?? "–" }
}
