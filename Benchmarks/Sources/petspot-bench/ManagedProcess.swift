import Glibc
import Foundation

/// A child process the benchmark starts, watches (RSS, CPU time) and stops.
final class ManagedProcess: Sendable {
    let name: String
    let pid: Int32

    /// Starts `executable` with `arguments`, optionally under `taskset -c CPUS`.
    /// - Parameter output: where stdout and stderr go (`nil`: /dev/null).
    init(name: String, executable: String, arguments: [String], pin: String?, output: String? = nil) throws {
        let process = Process()
        if let pin {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/taskset")
            process.arguments = ["-c", pin, executable] + arguments
        } else {
            process.executableURL = URL(fileURLWithPath: executable)
            process.arguments = arguments
        }
        if let output {
            _ = FileManager.default.createFile(atPath: output, contents: nil)
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
            process.standardOutput = handle
            process.standardError = handle
        } else {
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
        }
        process.standardInput = FileHandle.nullDevice
        try process.run()
        self.name = name
        self.pid = process.processIdentifier
    }

    /// Wraps an existing process (gpsd, started by gpsfake).
    init(name: String, pid: Int32) {
        self.name = name
        self.pid = pid
    }

    /// Stops it: SIGTERM, then SIGKILL after `grace` seconds.
    func stop(grace: Double = 3) {
        kill(pid, SIGTERM)
        let deadline = Date().addingTimeInterval(grace)
        var status: Int32 = 0
        while Date() < deadline {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno == ECHILD) {
                if reaped < 0, kill(pid, 0) == 0 {
                    usleep(50_000)
                    continue
                }
                return
            }
            usleep(50_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
    }

    /// Resident set size in KiB (`VmRSS` of /proc/PID/status).
    var residentKiB: Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        return nil
    }

    /// User plus system CPU time in clock ticks (`utime + stime` of /proc/PID/stat).
    var cpuTicks: Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = text.lastIndex(of: ")")
        else { return nil }
        // Fields after "comm)": state is field 3, utime 14, stime 15.
        let fields = text[text.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Int(fields[11]), let system = Int(fields[12]) else { return nil }
        return user + system
    }

    /// CPU time on all of its threads in nanoseconds: the sum of the first
    /// field of /proc/PID/task/*/schedstat. ``cpuTicks`` counts in 10 ms
    /// ticks, too coarse for a gpsd that spends a few milliseconds over a
    /// window at 1 Hz.
    var cpuNanos: Int64? {
        var total: Int64 = 0
        var any = false
        forEachTask { task in
            guard let text = try? String(contentsOfFile: "\(task)/schedstat", encoding: .utf8),
                let first = text.split(separator: " ").first, let nanos = Int64(first)
            else { return }
            total += nanos
            any = true
        }
        return any ? total : nil
    }

    /// Context switches (voluntary + nonvoluntary, /proc/PID/task/TID/status)
    /// of every thread, by thread id, with the thread's name (`comm`).
    var threadSwitches: [String: (name: String, switches: Int, involuntary: Int)] {
        var threads: [String: (name: String, switches: Int, involuntary: Int)] = [:]
        forEachTask { task in
            guard let text = try? String(contentsOfFile: "\(task)/status", encoding: .utf8) else { return }
            var name = "?"
            var count = 0
            var involuntary = 0
            for line in text.split(separator: "\n") {
                if line.hasPrefix("Name:") {
                    name = line.dropFirst(5).trimmingCharacters(in: .whitespaces)
                } else if line.hasPrefix("voluntary_ctxt_switches:") {
                    count += Int(line.split(separator: "\t").last ?? "") ?? 0
                } else if line.hasPrefix("nonvoluntary_ctxt_switches:") {
                    let value = Int(line.split(separator: "\t").last ?? "") ?? 0
                    count += value
                    involuntary += value
                }
            }
            threads[(task as NSString).lastPathComponent] = (name, count, involuntary)
        }
        return threads
    }

    private func forEachTask(_ body: (String) -> Void) {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") else { return }
        for task in tasks { body("/proc/\(pid)/task/\(task)") }
    }

    /// Whether it still runs.
    var isRunning: Bool { kill(pid, 0) == 0 }

    /// Clock ticks per second for ``cpuTicks``.
    static let ticksPerSecond = Double(sysconf(Int32(_SC_CLK_TCK)))

    /// The pid of the first process whose command line has all of `parts`.
    static func find(commandLineContaining parts: [String]) -> Int32? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        for entry in entries {
            guard let pid = Int32(entry),
                let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline"), !data.isEmpty
            else { continue }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            if parts.allSatisfy({ part in arguments.contains(part) }) { return pid }
        }
        return nil
    }
}
