import Foundation
import Glibc
import Testing
import TestSupport

/// An idle daemon is not woken at all (issue 40): no thread of the real
/// process switches while nothing happens, after it has served every kind
/// of request that starts a task or times a wait. Swift concurrency's
/// default executor (libdispatch's global pool) would start a monitor that
/// wakes the process every second for good, so this fails if any daemon
/// task or timer reaches that pool (LocationDaemonProgram, docs/ARCHITECTURE.md
/// "Executors").
@Suite(.serialized) struct IdleWakeupTests {
    /// Context switches (voluntary and involuntary) per thread of `pid`.
    static func switches(of pid: Int32) -> [String: (name: String, count: Int)] {
        var threads: [String: (name: String, count: Int)] = [:]
        let taskFolder = "/proc/\(pid)/task"
        for task in (try? FileManager.default.contentsOfDirectory(atPath: taskFolder)) ?? [] {
            guard let status = try? String(contentsOfFile: "\(taskFolder)/\(task)/status", encoding: .utf8) else {
                continue
            }
            var name = "?"
            var count = 0
            for line in status.split(separator: "\n") {
                if line.hasPrefix("Name:") { name = line.dropFirst(5).trimmingCharacters(in: .whitespaces) }
                if line.hasPrefix("voluntary_ctxt_switches:") || line.hasPrefix("nonvoluntary_ctxt_switches:") {
                    count += Int(line.split(separator: "\t").last ?? "") ?? 0
                }
            }
            threads[task] = (name, count)
        }
        return threads
    }

    /// The switches of `pid`'s threads over `seconds` of nothing happening,
    /// one entry per thread that switched (a thread born in the window
    /// counts all of its switches).
    static func wakeUps(of pid: Int32, over seconds: Int) async throws -> [String] {
        let before = switches(of: pid)
        try await Task.sleep(for: .seconds(seconds))  // the window measured: nothing is awaited here
        return switches(of: pid).compactMap { task, after in
            let delta = after.count - (before[task]?.count ?? 0)
            return delta > 0 ? "\(after.name) (\(task)): \(delta)" : nil
        }.sorted()
    }

    /// Expects no thread of `daemon` to switch over 5 s once it has settled:
    /// first, one-second windows until one passes with no switch (work the
    /// requests left behind, such as an audit fsync finishing late on a busy
    /// disk, or a libdispatch worker leaving after 5 s idle), at most 30.
    /// A periodic wake-up (the 1/s monitor) never settles, or shows in the 5 s.
    ///
    /// With `deadline`, settling starts only once that instant has passed:
    /// a timed wait the daemon cancelled (a `location.get` answered before its
    /// timeout) still wakes one loop once at its deadline, because NIO re-arms
    /// its timerfd only for an earlier deadline and never disarms it
    /// (swift-nio `SelectorEpoll`, `blockUntilTimeout`). The promise is that
    /// nothing wakes after the last deadline the requests set, and never again.
    static func expectNoWakeUp(_ daemon: DaemonProcess, after deadline: ContinuousClock.Instant? = nil) async throws {
        if let deadline {
            // The event waited for is that deadline itself, a clock instant.
            try await Task.sleep(until: deadline, clock: .continuous)
        }
        for _ in 0..<30 {
            if try await wakeUps(of: daemon.child.pid, over: 1).isEmpty { break }
        }
        let woken = try await wakeUps(of: daemon.child.pid, over: 5)
        #expect(woken.isEmpty, "threads woken while idle: \(woken)")
    }

    /// Requests that each start a task or a timer in the daemon: a one-shot
    /// answer, a watch (the static ticker's sleeps), status, a reload
    /// (SIGHUP: the signal sequence and the reload task).
    static func exercise(_ daemon: DaemonProcess) throws {
        #expect(try daemon.cli(["get"]).status == 0)
        let watch = try daemon.cli(["watch", "--count", "3"])
        #expect(watch.status == 0, "\(watch.stderr)")
        #expect(try daemon.cli(["status"]).status == 0)
        daemon.child.signal(SIGHUP)
        #expect(daemon.child.waitForStderr(containing: "reload finished", timeout: 60))
        #expect(try daemon.cli(["get", "--max-age", "0"]).status == 0)
    }

    @Test("a static-source daemon that has served every kind of request then sleeps: 0 wake-ups in 5 s")
    func staticSourceSleepsWhenIdle() async throws {
        let daemon = try DaemonProcess(
            source: """
                [source]
                kind = "static"
                [source.static]
                latitude = 52.2297
                longitude = 21.0122
                horizontal_accuracy = 15.0
                """)
        defer { daemon.stop() }
        try Self.exercise(daemon)
        try await Self.expectNoWakeUp(daemon)
    }

    @Test("a finished scenario, after a location.get that timed out waiting for a fix: 0 wake-ups in 5 s")
    func simulatedSourceSleepsWhenIdle() async throws {
        // A scenario with no fix for 2 s, one fix, then nothing (not looping):
        // the get with --max-age 0 times out waiting (the hub's deadline
        // timer and the player's sleeps), then the daemon has nothing to do.
        let daemon = try DaemonProcess(
            source: """
                [source]
                kind = "simulated"
                [source.simulated]
                scenario = "{dir}/scenario.json"
                """,
            files: [
                "scenario.json": """
                {"loop": false, "steps": [{"noFix": 2},
                  {"fix": {"latitude": 52.2297, "longitude": 21.0122, "horizontalAccuracy": 8, "mode": 2}}]}
                """
            ])
        defer { daemon.stop() }
        let timedOut = try daemon.cli(["get", "--max-age", "0", "--timeout", "1"])
        #expect(timedOut.status == 4, "\(timedOut.stdout) \(timedOut.stderr)")
        let answered = try daemon.cli(["get", "--max-age", "0", "--timeout", "10"])
        // The daemon set the get's deadline before the client had its answer.
        let answeredDeadline = ContinuousClock.now + .seconds(10)
        #expect(answered.status == 0, "\(answered.stderr)")
        try await Self.expectNoWakeUp(daemon, after: answeredDeadline)
    }
}
