import Foundation
import Testing
import TestSupport

/// The built daemon and CLI as real processes on a temporary socket.
@Suite("End to end: petspot-locationd + petspot-location")
struct EndToEndTests {
    @Test("get --json returns the scenario's fix, every field as scripted")
    func getReturnsScenarioFix() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.singleFix)
        defer { daemon.stop() }
        let run = try daemon.cli(["get", "--json", "--max-age", "60"])
        #expect(run.status == 0, "\(run.stderr)")
        let fix = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(fix["latitude"] as? Double == -33.8688)
        #expect(fix["longitude"] as? Double == 151.2093)
        #expect(fix["altitude"] as? Double == 58)
        #expect(fix["horizontalAccuracy"] as? Double == 4.5)
        #expect(fix["verticalAccuracy"] as? Double == 7)
        #expect(fix["speed"] as? Double == 0.5)
        #expect(fix["course"] as? Double == 270)
        #expect(fix["mode"] as? Int == 3)
        #expect(fix["source"] as? String == "simulated")
        #expect(fix["accuracy"] as? String == "full")
        #expect((fix["age"] as? Double).map { $0 >= 0 } == true)
        #expect((fix["timestamp"] as? String)?.hasSuffix("Z") == true)
        #expect(
            Set(fix.keys).isSubset(of: [
                "latitude", "longitude", "altitude", "horizontalAccuracy", "verticalAccuracy", "speed", "course",
                "timestamp", "mode", "source", "age", "accuracy",
            ]))
    }

    @Test("human output names the position; exit 0")
    func humanOutput() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.singleFix)
        defer { daemon.stop() }
        let run = try daemon.cli(["get", "--max-age", "60"])
        #expect(run.status == 0)
        #expect(run.stdout.contains("-33.868800, 151.209300"))
        #expect(run.stdout.contains("simulated"))
    }

    @Test("a stale cached fix is not returned: maxAge 0 waits, then locationUnknown (exit 4) within timeout + margin")
    func staleFixTimesOut() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.singleFix)
        defer { daemon.stop() }
        let started = Date()
        let run = try daemon.cli(["get", "--max-age", "0", "--timeout", "1"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(run.status == 4)
        #expect(run.stderr.contains("locationUnknown"))
        #expect(elapsed >= 1)
        // The margin covers starting the CLI on a loaded machine; a call that
        // ignored its limit would wait for a fix that never comes.
        #expect(elapsed < 1 + 15, "answered after \(elapsed) s")
    }

    @Test("a scenario without fixes gives locationUnknown within the timeout plus a small margin")
    func noFixScenario() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.noFix)
        defer { daemon.stop() }
        let started = Date()
        let run = try daemon.cli(["get", "--json", "--timeout", "1.5"])
        let elapsed = Date().timeIntervalSince(started)
        #expect(run.status == 4)
        #expect(run.stderr.contains("locationUnknown"))
        #expect(elapsed < 1.5 + 15, "answered after \(elapsed) s")
    }

    @Test("watch honours distanceFilter: consecutive updates are at least that far apart")
    func watchDistanceFilter() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.walk)
        defer { daemon.stop() }
        let run = try daemon.cli(["watch", "--json", "--distance-filter", "20", "--count", "4"], timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
        let fixes = try run.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(fixes.count == 4)
        for (previous, next) in zip(fixes, fixes.dropFirst()) {
            let a = try #require(previous["latitude"] as? Double)
            let b = try #require(next["latitude"] as? Double)
            let metres = abs(b - a) * 111_195
            // Scenario steps are ~5.6 m: 20 m needs 4 steps, and the filter
            // must not let a closer one through. A watcher is handed only the
            // newest fix, so one that fell behind on a loaded machine may skip
            // a few steps: the upper bound only catches a filter far off.
            #expect(metres >= 20, "updates \(metres) m apart")
            #expect(metres < 20 + 5.6 * 20, "updates \(metres) m apart")
        }
    }

    @Test("watch honours interval: updates at least that many seconds apart by receiver time")
    func watchInterval() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.walk)
        defer { daemon.stop() }
        let run = try daemon.cli(["watch", "--json", "--interval", "0.5", "--count", "4"], timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
        let stamps = try run.stdout.split(separator: "\n").map { line -> Double in
            let fix = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            let text = try #require(fix["timestamp"] as? String)
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let date = try #require(formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text))
            return date.timeIntervalSince1970
        }
        #expect(stamps.count == 4)
        for (previous, next) in zip(stamps, stamps.dropFirst()) {
            // Receiver stamps come from the scenario's clock; the daemon filters
            // by receipt time, so allow scheduling jitter of one step (50 ms).
            #expect(next - previous >= 0.45, "updates \(next - previous) s apart")
        }
    }

    @Test("status shows the source without coordinates")
    func statusHasNoCoordinates() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.singleFix)
        defer { daemon.stop() }
        let run = try daemon.cli(["status", "--json"])
        #expect(run.status == 0)
        let status = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let source = try #require(status["source"] as? [String: Any])
        #expect(source["kind"] as? String == "simulated")
        #expect(source["fixes"] as? Int == 1)
        #expect(status["version"] is String)
        #expect(!run.stdout.contains("33.86"))
        #expect(!run.stdout.contains("151.2"))
    }

    @Test("daemon unreachable: exit 5 with a message naming the socket")
    func unreachable() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let run = try ChildProcess.run(
            RepositoryPaths.executable("petspot-location"), ["get", "--socket", directory.file("none.sock")])
        #expect(run.status == 5)
        #expect(run.stderr.contains("none.sock"))
    }

    @Test(
        "usage errors exit 1", arguments: [["get", "--timeout", "301"], ["get", "--min-mode", "7"], ["frobnicate"]])
    func usageErrors(arguments: [String]) throws {
        let run = try ChildProcess.run(RepositoryPaths.executable("petspot-location"), arguments)
        #expect(run.status == 1)
        #expect(!run.stderr.isEmpty)
    }

    @Test("SIGTERM stops cleanly: exit status 0 and the socket file removed; socket_mode applied")
    func cleanStop() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.singleFix, daemon: "socket_mode = \"0640\"")
        let attributes = try FileManager.default.attributesOfItem(atPath: daemon.socketPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o640)
        let path = daemon.socketPath
        #expect(daemon.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("SIGTERM stops the daemon even with watchers and waiting requests connected")
    func stopWithOpenConnections() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.walk)
        let watcher = try daemon.connect()
        _ = try watcher.callLine(#"{"jsonrpc":"2.0","id":1,"method":"location.watch"}"#)
        let waiting = try daemon.connect()
        try waiting.send(
            #"{"jsonrpc":"2.0","id":2,"method":"location.get","params":{"maxAge":0,"minMode":3,"desiredAccuracy":0.001,"timeout":300}}"#
                + "\n")
        let status = daemon.stop(timeout: 30)
        #expect(
            status == 0,
            "\(daemon.child.process.terminationReason == .uncaughtSignal ? "signal" : "exit") \(status ?? -1): \(daemon.child.errors().suffix(12000))"
        )
        #expect(watcher.waitForClose(timeout: 30))
        #expect(waiting.waitForClose(timeout: 30))
    }

    @Test("watches are counted while open; unwatch stops updates, a disconnect ends the watch")
    func watchLifecycle() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.walk)
        defer { daemon.stop() }
        func watchers() throws -> Int? {
            let status = try daemon.connect().callLine(#"{"jsonrpc":"2.0","id":9,"method":"daemon.status"}"#)
            return status.result?["watchers"] as? Int
        }
        let first = try daemon.connect()
        let second = try daemon.connect()
        for client in [first, second] {
            let answer = try client.callLine(#"{"jsonrpc":"2.0","id":1,"method":"location.watch"}"#)
            #expect((answer.result?["subscription"] as? Int) == 1)
            let update = try client.readObject()
            #expect(update["method"] as? String == "location.update")
        }
        #expect(try watchers() == 2)

        // After unwatch answers, no update for that subscription follows.
        try first.send(#"{"jsonrpc":"2.0","id":2,"method":"location.unwatch","params":{"subscription":1}}"# + "\n")
        var answer = try first.readObject()
        while answer["method"] as? String == "location.update" { answer = try first.readObject() }
        #expect(answer["result"] as? Bool == true)
        #expect(first.staysSilent(for: 0.5), "updates kept coming after location.unwatch")
        #expect(try watchers() == 1)

        // A client that stops sending (here: half-closes) ends its watch,
        // counted down once the daemon has read the end of its stream.
        second.shutdownWrite()
        let deadline = ContinuousClock.now + .seconds(60)
        while try watchers() != 0, ContinuousClock.now < deadline { usleep(20_000) }
        #expect(try watchers() == 0)
    }

    @Test("a second daemon refuses to steal a live socket")
    func refusesLiveSocket() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.singleFix)
        defer { daemon.stop() }
        let second = try ChildProcess.run(
            RepositoryPaths.executable("petspot-locationd"), ["--config", daemon.configPath], timeout: 60)
        #expect(second.status == 1)
        #expect(second.stderr.contains("already serving"))
        let client = try daemon.connect()
        #expect(try client.assertServing())
    }
}
