import Glibc
import Foundation
import Testing
import TestSupport

/// Hardening (issue 13) against a real daemon: clients that never read, and
/// grants that end while an answer is on its way. Each test is named after
/// the item it shows (docs/ROBUSTNESS.md).
@Suite(.serialized) struct HostileClientTests {
    static func rule(_ status: String, accuracy: String? = nil) -> String {
        """
        [policy]
        prompt = "deny"
        [[policy.rules]]
        uid = \(getuid())
        status = "\(status)"
        \(accuracy.map { "accuracy = \"\($0)\"" } ?? "")
        """
    }

    /// One fix, then ten seconds without any: a `location.get` with a tiny
    /// maxAge waits for the next one. The reload under test must be in force
    /// before that fix: the gap leaves a loaded machine room for it.
    static let sparseFixes = """
        {"loop": true, "steps": [
          {"fix": {"latitude": 52.2301, "longitude": 21.0101, "horizontalAccuracy": 5, "mode": 2}},
          {"wait": 10}
        ]}
        """

    /// The 99th percentile of `location.get` round trips on `socket`, in µs; every one must be answered.
    static func p99(of socket: RawSocket, ids: Range<Int>) throws -> Int {
        var micros: [Int] = []
        for id in ids {
            let start = ContinuousClock.now
            #expect(resultObject(try socket.call("location.get", id: id, timeout: 60)) != nil)
            let elapsed = ContinuousClock.now - start
            micros.append(
                Int(elapsed.components.seconds) * 1_000_000 + Int(elapsed.components.attoseconds / 1_000_000_000_000))
        }
        micros.sort()
        return micros[micros.count * 99 / 100]
    }

    static func lines(_ line: String, bytes: Int) -> [UInt8] {
        let one = Array((line + "\n").utf8)
        return Array([[UInt8]](repeating: one, count: max(1, bytes / one.count)).joined())
    }

    /// Item 1: whatever a client sends without reading, the daemon holds a
    /// bounded amount for it (it stops reading the connection) and keeps
    /// answering everyone else.
    @Test func item01_aClientThatNeverReadsCannotGrowTheDaemon() throws {
        let daemon = try PolicyDaemon(policy: Self.rule("authorized"))
        defer { daemon.finish() }
        try daemon.start()
        let polite = try daemon.connect()
        for id in 1...50 { #expect(resultObject(try polite.call("location.get", id: id)) != nil) }
        let before = try #require(daemon.residentKiB)
        let quietP99 = try Self.p99(of: polite, ids: 1000..<1400)

        let get = #"{"jsonrpc":"2.0","id":7,"method":"location.get"}"#
        let batchOfGets = "[" + Array(repeating: get, count: 64).joined(separator: ",") + "]"
        // (name, bytes, whether its answers outgrow the socket buffers, so the daemon must stop reading)
        let floods: [(String, [UInt8], Bool)] = [
            ("garbage lines", Self.lines("this is not json", bytes: 512 << 10), true),
            // Each such line is refused whole with one short answer (RPCCodec.maximumBatchLength).
            (
                "64 KiB batch lines",
                Self.lines(
                    "[" + Array(repeating: "1", count: 32_000).joined(separator: ",") + "]",
                    bytes: 5 << 20), false
            ),
            ("batches of 64 location.get", Self.lines(batchOfGets, bytes: 5 << 20), true),
            ("pipelined location.get", Self.lines(get, bytes: 5 << 20), true),
        ]
        var hostile: [RawSocket] = []
        for (name, bytes, pushesBack) in floods {
            let socket = try daemon.connect()
            let sent = socket.sendUntilStalled(bytes)
            print("hostile client (\(name)): sent \(sent) of \(bytes.count) bytes before the daemon stopped reading")
            if pushesBack { #expect(sent < bytes.count, "the daemon read everything from \(name): no backpressure") }
            hostile.append(socket)
        }
        // Everyone else is still answered while the hostile clients sit there
        // (the ratio of p99s is printed for docs/ROBUSTNESS.md, not judged: timing belongs in benchmarks).
        let floodedP99 = try Self.p99(of: polite, ids: 2000..<2400)
        print(
            "polite location.get p99: \(quietP99) µs alone, \(floodedP99) µs beside the hostile clients "
                + "(ratio \(Double(floodedP99) / Double(max(1, quietP99))))")
        let after = try #require(daemon.residentKiB)
        let growth = Double(after - before) / 1024
        print("daemon RSS \(before) KiB → \(after) KiB: +\(growth) MiB for \(floods.count) hostile connections")
        #expect(growth <= 8 * Double(floods.count), "RSS grew \(growth) MiB")
        withExtendedLifetime(hostile) {}
    }

    /// Item 7: a watch asked for by a client that does not read, across a
    /// reload that denies it, never delivers. Since one handler serves each
    /// connection (issue 27), a line is not even taken while the daemon
    /// cannot write to its client: the watch is judged when the client reads
    /// again, after the reload, and refused. (Before, it was granted and its
    /// answer waited: the re-judging at its start was what kept it out.)
    @Test func item07_aParkedWatchIsJudgedAgainWhenItStarts() async throws {
        let daemon = try PolicyDaemon(policy: Self.rule("authorized"))
        defer { daemon.finish() }
        try daemon.start()
        let parked = try daemon.connect()
        // Fill the socket with answers the client does not read (batches:
        // their answers outgrow the socket's buffers), wait until the daemon
        // can write no more, then ask to watch.
        let get = #"{"jsonrpc":"2.0","id":1,"method":"location.get"}"#
        let batch = "[" + Array(repeating: get, count: 64).joined(separator: ",") + "]\n"
        #expect(parked.sendUntilStalled(Array(String(repeating: batch, count: 20).utf8)) > 0)
        parked.waitUntilIncomingSettles()
        #expect(
            parked.sendUntilStalled(Array((#"{"jsonrpc":"2.0","id":99,"method":"location.watch"}"# + "\n").utf8)) > 0)

        try daemon.writeConfiguration(policy: Self.rule("denied"))
        try daemon.reload { errorCode(try $0.call("location.get", id: 5)) == -32002 }
        // Not taken while the daemon could not write: not judged, not granted.
        #expect(!daemon.audit.contains(#""method":"location.watch""#))

        // The client drains its socket: past the reload, no update may come.
        var sawWatchAnswer = false
        var updates = 0
        var ended = false
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !ended {
            guard let object = try parked.readJSON(timeout: 60) as? [String: Any] else { continue }
            switch object["method"] as? String {
            case "location.update": updates += 1
            case "location.error": ended = true
            default:
                if object["id"] as? Int == 99 {
                    sawWatchAnswer = true
                    // Refused outright is fine too: then nothing more comes.
                    if errorCode(object) == -32002 { ended = true }
                }
            }
        }
        #expect(sawWatchAnswer)
        #expect(ended, "the parked watch was never ended")
        #expect(updates == 0, "\(updates) updates reached a denied watcher")
        #expect(parked.staysSilent(for: 0.5))
    }

    /// Revocation reaches every watcher even when some watchers never read:
    /// the re-checks after a reload run one watcher after another, and the
    /// `location.error` of a watcher whose socket is full must not hold up the
    /// ones after it (which would keep receiving fixes they are no longer
    /// allowed). Four stalled and four polite watchers in the daemon's
    /// (unordered) watcher table: every polite one must be told.
    @Test func item07_aStalledWatcherDoesNotHoldUpTheRevocationOfOthers() throws {
        let daemon = try PolicyDaemon(policy: Self.rule("authorized"))
        defer { daemon.finish() }
        try daemon.start()
        let get = #"{"jsonrpc":"2.0","id":1,"method":"location.get"}"#
        let batch = "[" + Array(repeating: get, count: 64).joined(separator: ",") + "]\n"
        var stalled: [RawSocket] = []
        var polite: [RawSocket] = []
        for index in 0..<8 {
            let socket = try daemon.connect()
            #expect(resultObject(try socket.call("location.watch", id: 100 + index)) != nil)
            if index % 2 == 0 {
                // Answers it never reads, until the daemon can write it nothing more.
                #expect(socket.sendUntilStalled(Array(String(repeating: batch, count: 20).utf8)) > 0)
                socket.waitUntilIncomingSettles()
                stalled.append(socket)
            } else {
                polite.append(socket)
            }
        }
        try daemon.writeConfiguration(policy: Self.rule("denied"))
        try daemon.reload { errorCode(try $0.call("location.get", id: 5)) == -32002 }
        for (index, socket) in polite.enumerated() {
            var told = false
            let deadline = Date().addingTimeInterval(60)
            while Date() < deadline, !told {
                guard let object = try? socket.readJSON(timeout: 5) as? [String: Any] else { continue }
                told = object["method"] as? String == "location.error"
            }
            #expect(told, "polite watcher \(index) was never told its watch ended")
        }
        withExtendedLifetime(stalled) {}
    }

    /// Item 8: a `location.get` that was waiting for a fix when a reload
    /// denied the client gets the refusal, not the fix.
    @Test func item08_aWaitingGetIsJudgedAgainWhenTheFixArrives() throws {
        let daemon = try PolicyDaemon(policy: Self.rule("authorized"), scenario: Self.sparseFixes)
        defer { daemon.finish() }
        try daemon.start()
        let waiting = try daemon.connect()
        // In step with the scenario: just after a fix, the next is ten seconds away.
        #expect(resultObject(try waiting.call("location.get", ["maxAge": 0.001], id: 0)) != nil)
        try waiting.sendRequest("location.get", ["maxAge": 0.001, "timeout": 60], id: 1)
        try daemon.writeConfiguration(policy: Self.rule("denied"))
        try daemon.reload { errorCode(try $0.call("location.get", ["maxAge": 0.001], id: 5)) == -32002 }
        let answer = try waiting.response(id: 1, timeout: 60)
        #expect(errorCode(answer) == -32002, "\(answer)")
        #expect(resultObject(answer) == nil)
    }

    /// Item 8, the other way round: a grant reduced while the request waited
    /// gives the reduced fix.
    @Test func item08_aWaitingGetReducedMeanwhileGetsTheReducedFix() throws {
        let daemon = try PolicyDaemon(policy: Self.rule("authorized"), scenario: Self.sparseFixes)
        defer { daemon.finish() }
        try daemon.start()
        let waiting = try daemon.connect()
        #expect(
            resultObject(try waiting.call("location.get", ["maxAge": 0.001], id: 0))?["accuracy"] as? String == "full")
        try waiting.sendRequest("location.get", ["maxAge": 0.001, "timeout": 60], id: 1)
        try daemon.writeConfiguration(policy: Self.rule("authorized", accuracy: "reduced"))
        try daemon.reload {
            resultObject(try $0.call("authorization.status", id: 5))?["accuracy"] as? String == "reduced"
        }
        let fix = resultObject(try waiting.response(id: 1, timeout: 60))
        #expect(fix?["accuracy"] as? String == "reduced")
        #expect((fix?["horizontalAccuracy"] as? Double ?? 0) >= 3000)
    }
}
