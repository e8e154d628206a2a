import Foundation
import Testing
import TestSupport

/// `prompt = "agent"` end to end: a root agent in process, clients under other uids.
@Suite(.serialized, .enabled(if: TestUsers.available, "needs root to run clients as other users (setpriv, useradd)"))
struct PromptIntegrationTests {
    static let agentPolicy = """
        [policy]
        prompt = "agent"
        prompt_timeout = 1
        """

    @Test func withoutAnAgentTheAnswerIsPromptUnavailableAtOnce() throws {
        let users = TestUsers()
        defer { users.remove() }
        let user = try users.user("n")
        // A long prompt timeout: "at once" is then far from waiting for it.
        let daemon = try PolicyDaemon(policy: "[policy]\nprompt = \"agent\"\nprompt_timeout = 60\n")
        defer { daemon.finish() }
        try daemon.start()

        let started = Date()
        let request = try TestUsers.cli(user, ["call", "authorization.request", "--socket", daemon.socket])
        #expect(errorCode(jsonObject(request.stdout) ?? [:]) == -32012)
        #expect(errorReason(jsonObject(request.stdout) ?? [:]) == "promptUnavailable")
        #expect(Date().timeIntervalSince(started) < 30, "as if it waited for the 60 s prompt timeout")
        let status = try TestUsers.cli(user, ["authorization", "status", "--json", "--socket", daemon.socket])
        #expect(jsonObject(status.stdout)?["status"] as? String == "notDetermined")
    }

    @Test func aSilentAgentMeansPromptUnavailableWithinTheTimeout() throws {
        let users = TestUsers()
        defer { users.remove() }
        let user = try users.user("s")
        let daemon = try PolicyDaemon(policy: Self.agentPolicy)
        defer { daemon.finish() }
        try daemon.start()
        let agent = try daemon.connect()
        #expect(try agent.call("agent.register")["result"] as? Bool == true)

        let started = Date()
        let request = try TestUsers.cli(user, ["call", "authorization.request", "--socket", daemon.socket])
        let elapsed = Date().timeIntervalSince(started)
        #expect(errorCode(jsonObject(request.stdout) ?? [:]) == -32012)
        // The 1 s prompt timeout, and starting a CLI on a loaded machine (the default timeout is 30 s).
        #expect(elapsed >= 0.9 && elapsed < 20, "answered after \(elapsed) s")
        let prompt = try agent.message(method: "agent.prompt", timeout: 60)
        #expect(((prompt["params"] as? [String: Any])?["client"] as? [String: Any])?["uid"] as? Int == Int(user.uid))
        let status = try TestUsers.cli(user, ["authorization", "status", "--json", "--socket", daemon.socket])
        #expect(jsonObject(status.stdout)?["status"] as? String == "notDetermined")
    }

    @Test func theAgentAllowsDeniesOrAllowsOnce() throws {
        let users = TestUsers()
        defer { users.remove() }
        let once = try users.user("o")
        let denied = try users.user("d")
        let allowed = try users.user("a")
        let daemon = try PolicyDaemon(policy: "[policy]\nprompt = \"agent\"\nprompt_timeout = 60\n")
        defer { daemon.finish() }
        try daemon.start()
        let agent = try daemon.connect()
        #expect(try agent.call("agent.register")["result"] as? Bool == true)

        func decide(_ user: TestUsers.User, _ answer: [String: Any]) throws -> (Int32?, [String: Any]?) {
            let child = try TestUsers.startCLI(
                user, ["authorization", "request", "--accuracy", "full", "--json", "--socket", daemon.socket])
            defer { child.terminate() }
            let prompt = try agent.message(method: "agent.prompt")
            let params = prompt["params"] as? [String: Any]
            #expect((params?["client"] as? [String: Any])?["uid"] as? Int == Int(user.uid))
            #expect(params?["accuracy"] as? String == "full")
            try agent.sendJSON(["jsonrpc": "2.0", "id": prompt["id"] ?? 0, "result": answer])
            let status = child.wait(timeout: 60)
            return (status, jsonObject(child.output()))
        }

        // Allow once: authorized for that connection, notDetermined for the next one.
        let (onceStatus, onceState) = try decide(once, ["decision": "allowOnce"])
        #expect(onceStatus == 0)
        #expect(onceState?["status"] as? String == "authorized")
        let after = try TestUsers.cli(once, ["authorization", "status", "--json", "--socket", daemon.socket])
        #expect(jsonObject(after.stdout)?["status"] as? String == "notDetermined")

        let (deniedStatus, deniedState) = try decide(denied, ["decision": "deny"])
        #expect(deniedStatus == 3)
        #expect(deniedState?["status"] as? String == "denied")

        let (allowedStatus, allowedState) = try decide(allowed, ["decision": "allow", "accuracy": "reduced"])
        #expect(allowedStatus == 0)
        #expect(allowedState?["accuracy"] as? String == "reduced")
        let get = try TestUsers.cli(allowed, ["get", "--json", "--socket", daemon.socket])
        #expect(jsonObject(get.stdout)?["accuracy"] as? String == "reduced")
    }

    @Test func allowOnceLastsForItsConnectionOnly() throws {
        let daemon = try PolicyDaemon(policy: "[policy]\nprompt = \"agent\"\nprompt_timeout = 60\n")
        defer { daemon.finish() }
        try daemon.start()
        let agent = try daemon.connect()
        _ = try agent.call("agent.register")
        let client = try daemon.connect()
        try client.sendRequest("authorization.request", id: 7)
        let prompt = try agent.message(method: "agent.prompt")
        try agent.sendJSON(["jsonrpc": "2.0", "id": prompt["id"] ?? 0, "result": ["decision": "allowOnce"]])
        #expect(resultObject(try client.response(id: 7))?["status"] as? String == "authorized")
        #expect(resultObject(try client.call("location.get", id: 8))?["latitude"] != nil)

        let second = try daemon.connect()
        #expect(errorCode(try second.call("location.get", id: 1)) == -32001)
        #expect(resultObject(try client.call("location.get", id: 9))?["latitude"] != nil)
    }

    @Test func theNewestAgentRegistrationWins() throws {
        let daemon = try PolicyDaemon(policy: "[policy]\nprompt = \"agent\"\nprompt_timeout = 60\n")
        defer { daemon.finish() }
        try daemon.start()
        let first = try daemon.connect()
        _ = try first.call("agent.register")
        let second = try daemon.connect()
        _ = try second.call("agent.register")
        #expect(try first.message(method: "agent.replaced", timeout: 60)["method"] as? String == "agent.replaced")

        let client = try daemon.connect()
        try client.sendRequest("authorization.request", id: 3)
        let prompt = try second.message(method: "agent.prompt")
        #expect(first.staysSilent(for: 0.3))
        try second.sendJSON(["jsonrpc": "2.0", "id": prompt["id"] ?? 0, "result": ["decision": "deny"]])
        #expect(resultObject(try client.response(id: 3))?["status"] as? String == "denied")
    }
}
