import Foundation
import Testing
import TestSupport

/// Every bad input gets its exact answer, and the daemon keeps serving others.
@Suite("Bad input over the socket")
struct MalformedInputTests {
    struct Case: Sendable, CustomStringConvertible {
        var description: String
        var line: String
        var code: Int
        var idIsNull: Bool
        var messageMentions: String?
    }

    static let cases: [Case] = [
        Case(description: "invalid JSON", line: #"{"jsonrpc": "2.0", "method": "#, code: -32700, idIsNull: true),
        Case(description: "binary garbage", line: "\u{1}\u{2}\u{7f}\u{fe}garbage", code: -32700, idIsNull: true),
        Case(description: "a non-object", line: "42", code: -32600, idIsNull: true),
        Case(description: "a string", line: #""location.get""#, code: -32600, idIsNull: true),
        Case(
            description: "wrong jsonrpc version", line: #"{"jsonrpc":"1.0","id":1,"method":"daemon.status"}"#,
            code: -32600, idIsNull: false),
        Case(description: "no method", line: #"{"jsonrpc":"2.0","id":1}"#, code: -32600, idIsNull: false),
        Case(description: "empty batch", line: "[]", code: -32600, idIsNull: true),
        Case(
            description: "unknown method", line: #"{"jsonrpc":"2.0","id":1,"method":"location.teleport"}"#,
            code: -32601, idIsNull: false, messageMentions: "location.teleport"),
        Case(
            description: "maxAge not a number",
            line: #"{"jsonrpc":"2.0","id":1,"method":"location.get","params":{"maxAge":"abc"}}"#, code: -32602,
            idIsNull: false, messageMentions: "maxAge"),
        Case(
            description: "negative timeout",
            line: #"{"jsonrpc":"2.0","id":1,"method":"location.get","params":{"timeout":-1}}"#, code: -32602,
            idIsNull: false, messageMentions: "timeout"),
        Case(
            description: "timeout over 300",
            line: #"{"jsonrpc":"2.0","id":1,"method":"location.get","params":{"timeout":301}}"#, code: -32602,
            idIsNull: false, messageMentions: "timeout"),
        Case(
            description: "minMode 7", line: #"{"jsonrpc":"2.0","id":1,"method":"location.get","params":{"minMode":7}}"#,
            code: -32602, idIsNull: false, messageMentions: "minMode"),
        Case(
            description: "unknown parameter",
            line: #"{"jsonrpc":"2.0","id":1,"method":"location.get","params":{"uid":0}}"#, code: -32602,
            idIsNull: false, messageMentions: "uid"),
        Case(
            description: "positional params",
            line: #"{"jsonrpc":"2.0","id":1,"method":"location.get","params":[1,2]}"#, code: -32602, idIsNull: false),
        Case(
            description: "unwatch of an unknown subscription",
            line: #"{"jsonrpc":"2.0","id":1,"method":"location.unwatch","params":{"subscription":99}}"#,
            code: -32602, idIsNull: false, messageMentions: "subscription"),
    ]

    @Test("each bad request gets the exact error and the daemon still serves", arguments: cases)
    func badRequest(_ testCase: Case) throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.singleFix)
        defer { daemon.stop() }
        let client = try daemon.connect()
        let answer = try client.callLine(testCase.line)
        #expect(answer["jsonrpc"] as? String == "2.0")
        #expect(answer.errorCode == testCase.code, "\(answer)")
        if testCase.idIsNull {
            #expect(answer["id"] is NSNull)
        } else {
            #expect(answer["id"] as? Int == 1)
        }
        if let mention = testCase.messageMentions {
            #expect(answer.errorMessage?.contains(mention) == true, "\(answer.errorMessage ?? "")")
        }
        // Same connection, then a fresh one: both still answered.
        #expect(try client.assertServing())
        #expect(try daemon.connect().assertServing())
    }

    @Test("a line over 64 KiB gets -32600 and the connection is closed; others are served")
    func oversizedLine() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.singleFix)
        defer { daemon.stop() }
        let bystander = try daemon.connect()
        let client = try daemon.connect()
        let padding = String(repeating: "x", count: 70 * 1024)
        try? client.send(#"{"jsonrpc":"2.0","id":1,"method":"daemon.status","params":{"pad":""# + padding + "\"}}\n")
        let answer = try client.readObject()
        #expect(answer.errorCode == -32600)
        #expect(answer["id"] is NSNull)
        #expect(client.waitForClose(timeout: 60))
        #expect(try bystander.assertServing())
    }

    @Test("a line of exactly 65536 bytes is accepted (the limit is inclusive)")
    func lineAtLimit() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.singleFix)
        defer { daemon.stop() }
        let client = try daemon.connect()
        let head = #"{"jsonrpc":"2.0","id":7,"method":"daemon.status"}"#
        let line = head + String(repeating: " ", count: 65_536 - head.utf8.count)
        #expect(line.utf8.count == 65_536)
        let answer = try client.callLine(line)
        #expect(answer["id"] as? Int == 7)
        #expect(answer.result != nil)
    }

    @Test("a notification gets no answer; the next request's answer comes first")
    func notificationUnanswered() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.singleFix)
        defer { daemon.stop() }
        let client = try daemon.connect()
        try client.send(#"{"jsonrpc":"2.0","method":"daemon.status"}"# + "\n")
        try client.send(#"{"jsonrpc":"2.0","method":"no.such.method"}"# + "\n")
        let answer = try client.callLine(#"{"jsonrpc":"2.0","id":"second","method":"daemon.status"}"#)
        #expect(answer["id"] as? String == "second")
        #expect(client.staysSilent(for: 0.3))
    }

    @Test("a batch gets an array with one answer per request, none for notifications")
    func batch() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.singleFix)
        defer { daemon.stop() }
        let client = try daemon.connect()
        try client.send(
            #"[{"jsonrpc":"2.0","id":1,"method":"daemon.status"},{"jsonrpc":"2.0","method":"daemon.status"},{"jsonrpc":"2.0","id":2,"method":"nope"},17]"#
                + "\n")
        let answers = try #require(try client.readJSON() as? [[String: Any]])
        #expect(answers.count == 3)
        #expect(answers.first { $0["id"] as? Int == 1 }?.result != nil)
        #expect(answers.first { $0["id"] as? Int == 2 }?.errorCode == -32601)
        #expect(answers.first { $0["id"] is NSNull }?.errorCode == -32600)
    }

    @Test("a batch of notifications only gets no answer at all")
    func notificationBatch() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.singleFix)
        defer { daemon.stop() }
        let client = try daemon.connect()
        try client.send(#"[{"jsonrpc":"2.0","method":"daemon.status"}]"# + "\n")
        #expect(client.staysSilent(for: 0.3))
        #expect(try client.assertServing())
    }

    @Test("clients that vanish mid-request or mid-line do not disturb the daemon")
    func vanishingClients() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.noFix)
        defer { daemon.stop() }
        do {
            // Waits for a fix that never comes, then disappears.
            let waiting = try daemon.connect()
            try waiting.send(#"{"jsonrpc":"2.0","id":1,"method":"location.get","params":{"timeout":30}}"# + "\n")
        }
        do {
            // Half a line, then gone.
            let half = try daemon.connect()
            try half.send(#"{"jsonrpc":"2.0","id":1,"meth"#)
        }
        do {
            // Half a line, then end of input: the fragment is never a request.
            let half = try daemon.connect()
            try half.send(#"{"jsonrpc":"2.0","id":1,"meth"#)
            half.shutdownWrite()
            #expect(half.waitForClose(timeout: 60))
        }
        let client = try daemon.connect()
        #expect(try client.assertServing())
        let status = try client.callLine(#"{"jsonrpc":"2.0","id":2,"method":"daemon.status"}"#)
        // Only this client is left (the others were released).
        let deadline = Date().addingTimeInterval(60)
        var clients = status.result?["clients"] as? Int
        while clients != 1, Date() < deadline {
            clients =
                try client.callLine(#"{"jsonrpc":"2.0","id":3,"method":"daemon.status"}"#).result?["clients"] as? Int
        }
        #expect(clients == 1)
    }

    @Test("connections beyond max_clients get -32040 once and are closed; the others are still served")
    func tooManyClients() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.singleFix, daemon: "max_clients = 2")
        defer { daemon.stop() }
        let first = try daemon.connect()
        let second = try daemon.connect()
        #expect(try first.assertServing())
        #expect(try second.assertServing())
        let third = try daemon.connect()
        let refusal = try third.readObject()
        #expect(refusal.errorCode == -32040)
        #expect(refusal.errorReason == "tooManyClients")
        #expect(third.waitForClose(timeout: 60))
        #expect(try first.assertServing())
    }

    @Test("a watcher that never reads does not slow another watcher")
    func stuckWatcher() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.walk)
        defer { daemon.stop() }
        let stuck = try daemon.connect()
        try stuck.send(#"{"jsonrpc":"2.0","id":1,"method":"location.watch"}"# + "\n")
        let reader = try daemon.connect()
        _ = try reader.callLine(#"{"jsonrpc":"2.0","id":1,"method":"location.watch"}"#)
        // The scenario emits a fix every 50 ms: 60 updates take about 3 s.
        // They must keep reaching the reading watcher while the other
        // watcher's socket buffer is full (a watcher is handed only the newest
        // fix: one that a loaded machine delays may skip a few, never stop).
        let started = Date()
        var previousLatitude = -1.0
        for _ in 0..<60 {
            let update = try reader.readObject(timeout: 20)
            #expect(update["method"] as? String == "location.update")
            let fix = try #require((update["params"] as? [String: Any])?["fix"] as? [String: Any])
            let latitude = try #require(fix["latitude"] as? Double)
            if previousLatitude >= 0, latitude > previousLatitude {
                #expect(latitude - previousLatitude < 0.003, "the reader skipped 60 updates")
            }
            previousLatitude = latitude
        }
        #expect(Date().timeIntervalSince(started) < 30)
        #expect(try daemon.connect().assertServing())
    }

    /// Update lines go straight to the socket while nothing is ahead of them
    /// (`DirectSend`), through NIO once the socket is full: where the two
    /// meet (a line the full socket took only part of) no byte may be lost,
    /// doubled or reordered, and once the watcher reads again it is current.
    @Test("a watcher that stops reading, then reads: every line whole and in order, then current updates")
    func stalledWatcherReadsWholeLines() throws {
        // 100 fixes a second: the socket and NIO's buffer fill in seconds.
        let daemon = try Fixtures.daemon(scenario: PolicyDaemon.smallWalk)
        defer { daemon.stop() }
        let watcher = try daemon.connect()
        let subscription = try #require(
            try watcher.callLine(#"{"jsonrpc":"2.0","id":1,"method":"location.watch"}"#).result?["subscription"]
                as? Int)
        _ = try watcher.readObject()
        watcher.waitUntilIncomingSettles(quiet: 1, timeout: 120)
        let inSocket = watcher.unreadBytes
        #expect(inSocket > 16 << 10, "the daemon stopped writing before the socket was full")
        // Another client is served meanwhile.
        #expect(try daemon.connect().assertServing())
        // The stall itself (what is tested, not a wait for an event): some
        // 800 fixes, far more than NIO's buffer (64 KiB, about 200 lines)
        // and the socket hold.
        Thread.sleep(forTimeInterval: 8)

        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var bytes = 0
        func next() throws -> Double {
            let line = try watcher.readLine(timeout: 20)
            bytes += line.utf8.count + 1
            // A torn line (bytes lost or doubled where the two write paths meet) does not parse.
            let update = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(update["method"] as? String == "location.update")
            let params = try #require(update["params"] as? [String: Any])
            #expect(params["subscription"] as? Int == subscription)
            let fix = try #require(params["fix"] as? [String: Any])
            let text = try #require(fix["timestamp"] as? String)
            return try #require(formatter.date(from: text) ?? ISO8601DateFormatter().date(from: text))
                .timeIntervalSince1970
        }
        // In order of receiver time (a path's first fix shares its stamp with
        // the previous path's last), until the update held for it, which is
        // current (what the socket and NIO hold is 7 s old or more).
        var stamps: [Double] = []
        while stamps.last.map({ Date().timeIntervalSince1970 - $0 > 3 }) ?? true {
            stamps.append(try next())
            if stamps.count >= 100_000 { break }
        }
        let gaps = zip(stamps, stamps.dropFirst()).map { $1 - $0 }
        #expect(gaps.allSatisfy { $0 >= 0 }, "updates went back in time")
        // Newest only: before the held update, only what the socket and NIO's
        // buffer (its 64 KiB high-water mark, plus the line that crossed it) took.
        let bound = inSocket + (64 << 10) + 2 * 512
        #expect(bytes <= bound, "\(bytes) bytes before a current update: the stall's fixes were queued")
        print(
            "stalled watcher: \(stamps.count) updates (\(bytes) B, bound \(bound) B) until a current one, widest gap \(gaps.max() ?? 0) s"
        )
        // Reading again, the watcher is served live: 200 more, in order.
        var last = stamps.last ?? 0
        for _ in 0..<200 {
            let stamp = try next()
            #expect(stamp >= last)
            last = stamp
        }
        #expect(Date().timeIntervalSince1970 - last < 5, "the watcher fell behind after reading again")
    }
}
