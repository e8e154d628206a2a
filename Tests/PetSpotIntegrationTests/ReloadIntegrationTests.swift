import Glibc
import Foundation
import Testing
import TestSupport

/// SIGHUP reload, reduced accuracy, crash safety of decisions and the audit
/// log, with the real daemon and an in-process client (this test's uid).
@Suite(.serialized) struct ReloadIntegrationTests {
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

    @Test func aReloadThatRemovesAuthorizationEndsTheWatchAndABadFileKeepsTheRunningOne() throws {
        let daemon = try PolicyDaemon(policy: Self.rule("authorized"))
        defer { daemon.finish() }
        try daemon.start()
        let watcher = try daemon.connect()
        let subscription = resultObject(try watcher.call("location.watch"))?["subscription"] as? Int
        #expect(subscription != nil)
        _ = try watcher.message(method: "location.update")
        // A connection already answered (its decision kept for answers given
        // at once on the event loop) is judged by the new policy too.
        let early = try daemon.connect()
        #expect(resultObject(try early.call("location.get", id: 10)) != nil)
        #expect(resultObject(try early.call("location.get", id: 11)) != nil)

        try daemon.writeConfiguration(policy: Self.rule("denied"))
        daemon.child?.signal(SIGHUP)
        let ended = try watcher.message(method: "location.error")
        #expect(errorCode(try early.call("location.get", id: 12)) == -32002)
        let params = ended["params"] as? [String: Any]
        #expect(params?["subscription"] as? Int == subscription)
        #expect(((params?["error"] as? [String: Any])?["code"] as? Int) == -32002)
        // The subscription is gone: unwatch finds nothing.
        #expect(errorCode(try watcher.call("location.unwatch", ["subscription": subscription ?? 0], id: 2)) == -32602)

        // A broken file: the running (denied) policy stays, before, while and
        // once the reload is refused (its log line is the signal it was read).
        try daemon.directory.write("locationd.toml", "[policy]\ndefault = \"sometimes\"\n")
        daemon.child?.signal(SIGHUP)
        let client = try daemon.connect()
        let refused = "reload failed; keeping the running configuration"
        let deadline = Date().addingTimeInterval(60)
        repeat {
            #expect(errorCode(try client.call("location.get", id: 3)) == -32002)
            usleep(25_000)
        } while !daemon.logs.contains(refused) && Date() < deadline
        for _ in 0..<5 { #expect(errorCode(try client.call("location.get", id: 3)) == -32002) }
        daemon.stop()
        #expect(daemon.logs.contains(refused))
        #expect(daemon.logs.contains("policy.default"))
    }

    @Test func reducedAccuracyGivesOneAndTheSamePointForAThousandRequests() throws {
        let daemon = try PolicyDaemon(policy: Self.rule("authorized", accuracy: "reduced"))
        defer { daemon.finish() }
        try daemon.start()
        let client = try daemon.connect()
        var points = Set<String>()
        for id in 1...1000 {
            let fix = resultObject(try client.call("location.get", ["maxAge": 0.02], id: id))
            let latitude = fix?["latitude"] as? Double
            let longitude = fix?["longitude"] as? Double
            points.insert("\(latitude.map { "\($0)" } ?? "nil"),\(longitude.map { "\($0)" } ?? "nil")")
            #expect((fix?["horizontalAccuracy"] as? Double ?? 0) >= 3000)
            #expect(fix?["accuracy"] as? String == "reduced")
        }
        // maxAge 0.02 s forces a fresh fix of the walk (one every 10 ms) for
        // each request, so the true position moved between answers.
        #expect(points.count == 1, "\(points)")
        let watcher = try daemon.connect()
        _ = try watcher.call("location.watch", ["interval": 0.1])
        let update = try watcher.message(method: "location.update")
        let fix = (update["params"] as? [String: Any])?["fix"] as? [String: Any]
        #expect("\(fix?["latitude"] as? Double ?? 0),\(fix?["longitude"] as? Double ?? 0)" == points.first)
        #expect(fix?["speed"] == nil && fix?["altitude"] == nil && fix?["course"] == nil)
        // Hardening item 10: one reduced update per reduced_update_interval
        // (60 s), whatever interval was asked, while the walk gives 100 fixes a second.
        #expect(watcher.staysSilent(for: 1.5))
    }

    @Test(.enabled(if: getuid() == 0, "needs root: authorization.reset is for the admin (root)"))
    func killingTheDaemonWhileItWritesDecisionsNeverLeavesABadFile() throws {
        let daemon = try PolicyDaemon(policy: "[policy]\nprompt = \"allow\"\n")
        defer { daemon.finish() }
        for round in 0..<12 {
            try daemon.start()
            let client = try daemon.connect()
            // Every pair rewrites decisions.json twice. Bursts stay under the
            // per-connection in-flight limit; the last burst is cut short by SIGKILL
            // at a different moment each round.
            for burst in 0..<3 {
                for index in 0..<20 {
                    let id = burst * 100 + 2 * index
                    try client.sendRequest("authorization.reset", ["uid": 0], id: id)
                    try client.sendRequest(
                        "authorization.request", ["accuracy": index % 2 == 0 ? "full" : "reduced"], id: id + 1)
                }
                if burst < 2 { _ = try client.response(id: burst * 100 + 39, timeout: 60) }
            }
            usleep(useconds_t(round * 2_000))
            daemon.kill()
            if let data = FileManager.default.contents(atPath: daemon.decisionsFile) {
                let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
                #expect(object?["version"] as? Int == 1, "round \(round): \(String(decoding: data, as: UTF8.self))")
                #expect(object?["decisions"] is [String: Any])
            }
        }
        try daemon.start()
        daemon.stop()
        #expect(!daemon.logs.contains("corrupt"), "\(daemon.logs)")
    }

    @Test func theAuditLogRecordsRequestsWithoutCoordinates() throws {
        let daemon = try PolicyDaemon(policy: "[policy]\nprompt = \"allow\"\n")
        defer { daemon.finish() }
        try daemon.start()
        let client = try daemon.connect()
        #expect(errorCode(try client.call("location.get", id: 1)) == -32001)
        _ = try client.call("authorization.request", ["accuracy": "reduced"], id: 2)
        let fix = resultObject(try client.call("location.get", id: 3))
        _ = try client.call("location.watch", id: 4)
        daemon.stop()

        let text = try String(contentsOfFile: daemon.auditLog, encoding: .utf8)
        let records = text.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(
            records.map { $0["method"] as? String } == [
                "location.get", "authorization.request", "location.get", "location.watch",
            ])
        #expect(errorReason(["error": ["data": ["reason": records[0]["reason"] ?? ""]]]) == "notDetermined")
        #expect(records[2]["source"] as? String == "simulated")
        #expect(records[2]["accuracy"] as? String == "reduced")
        #expect(records[2]["fixAge"] is Double)
        #expect((records[2]["client"] as? [String: Any])?["pid"] as? Int == Int(getpid()))
        for key in ["latitude", "longitude", "coordinate"] { #expect(!text.contains(key)) }
        if let latitude = fix?["latitude"] as? Double { #expect(!text.contains(String(latitude))) }
        var info = stat()
        #expect(stat(daemon.auditLog, &info) == 0 && info.st_mode & 0o777 == 0o600)

        let printed = try ChildProcess.run(
            RepositoryPaths.executable("petspot-location"), ["audit", "--file", daemon.auditLog])
        #expect(printed.status == 0)
        #expect(printed.stdout.split(separator: "\n").count == 4)
        #expect(printed.stdout.contains("reason=notDetermined"))
        let missing = try ChildProcess.run(
            RepositoryPaths.executable("petspot-location"), ["audit", "--file", daemon.directory.file("none.jsonl")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("cannot read the audit log"))
    }
}
