import Glibc
import Foundation
import Testing
import TestSupport

/// Permission enforced by the real daemon for clients running under other
/// real uids (throwaway users, the CLI run through `setpriv`).
@Suite(.serialized, .enabled(if: TestUsers.available, "needs root to run clients as other users (setpriv, useradd)"))
struct PermissionIntegrationTests {
    @Test func aUserRuleAuthorizesThatUserAndNobodyElse() throws {
        let users = TestUsers()
        defer { users.remove() }
        let allowed = try users.user("a")
        let other = try users.user("b")
        let daemon = try PolicyDaemon(
            policy: """
                [policy]
                prompt = "deny"
                [[policy.rules]]
                user = "\(allowed.name)"
                status = "authorized"
                """)
        defer { daemon.finish() }
        try daemon.start()

        let granted = try TestUsers.cli(allowed, ["get", "--json", "--socket", daemon.socket])
        #expect(granted.status == 0, "\(granted.stderr)")
        #expect(jsonObject(granted.stdout)?["latitude"] != nil)

        let refused = try TestUsers.cli(other, ["get", "--socket", daemon.socket])
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("(notDetermined)"))
        let status = try TestUsers.cli(other, ["authorization", "status", "--json", "--socket", daemon.socket])
        let client = jsonObject(status.stdout)?["client"] as? [String: Any]
        #expect(client?["uid"] as? Int == Int(other.uid))
        #expect(client?["user"] as? String == other.name)
    }

    @Test func aGroupRuleAuthorizesItsMembersOnly() throws {
        let users = TestUsers()
        defer { users.remove() }
        let group = try users.group("k")
        let member = try users.user("m", groups: [group])
        let outsider = try users.user("o")
        let daemon = try PolicyDaemon(
            policy: """
                [policy]
                [[policy.rules]]
                group = "\(group)"
                status = "authorized"
                accuracy = "reduced"
                """)
        defer { daemon.finish() }
        try daemon.start()

        let granted = try TestUsers.cli(member, ["get", "--json", "--socket", daemon.socket])
        #expect(granted.status == 0, "\(granted.stderr)")
        let fix = jsonObject(granted.stdout)
        #expect(fix?["accuracy"] as? String == "reduced")
        #expect((fix?["horizontalAccuracy"] as? Double ?? 0) >= 3000)
        let status = try TestUsers.cli(member, ["authorization", "status", "--json", "--socket", daemon.socket])
        #expect(
            ((jsonObject(status.stdout)?["client"] as? [String: Any])?["groups"] as? [String])?.contains(group) == true)

        let refused = try TestUsers.cli(outsider, ["get", "--socket", daemon.socket])
        #expect(refused.status == 3)
        #expect(refused.stderr.contains("(notDetermined)"))
    }

    @Test func restrictedCannotBeChangedByAuthorizationRequest() throws {
        let users = TestUsers()
        defer { users.remove() }
        let restricted = try users.user("r")
        let other = try users.user("f")
        let daemon = try PolicyDaemon(
            policy: """
                [policy]
                prompt = "allow"
                [[policy.rules]]
                uid = \(restricted.uid)
                status = "restricted"
                """)
        defer { daemon.finish() }
        try daemon.start()

        let request = try TestUsers.cli(restricted, ["authorization", "request", "--json", "--socket", daemon.socket])
        #expect(request.status == 3)
        #expect(jsonObject(request.stdout)?["status"] as? String == "restricted")
        let get = try TestUsers.cli(restricted, ["call", "location.get", "--socket", daemon.socket])
        #expect(errorCode(jsonObject(get.stdout) ?? [:]) == -32003)
        #expect(errorReason(jsonObject(get.stdout) ?? [:]) == "restricted")
        // The same prompt mode does authorize a client the rule does not name.
        let allowed = try TestUsers.cli(other, ["authorization", "request", "--json", "--socket", daemon.socket])
        #expect(allowed.status == 0)
        #expect(jsonObject(allowed.stdout)?["status"] as? String == "authorized")
    }

    @Test func aDenialSurvivesADaemonRestart() throws {
        let users = TestUsers()
        defer { users.remove() }
        let user = try users.user("d")
        let daemon = try PolicyDaemon(policy: "[policy]\nprompt = \"deny\"\n")
        defer { daemon.finish() }
        try daemon.start()

        let denied = try TestUsers.cli(user, ["authorization", "request", "--json", "--socket", daemon.socket])
        #expect(jsonObject(denied.stdout)?["status"] as? String == "denied")
        daemon.stop()
        var info = stat()
        #expect(stat(daemon.decisionsFile, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o600)

        try daemon.start()
        let status = try TestUsers.cli(user, ["authorization", "status", "--json", "--socket", daemon.socket])
        #expect(status.status == 3)
        #expect(jsonObject(status.stdout)?["status"] as? String == "denied")
        #expect(jsonObject(status.stdout)?["decidedBy"] as? String == "decision")
        let get = try TestUsers.cli(user, ["call", "location.get", "--socket", daemon.socket])
        #expect(errorCode(jsonObject(get.stdout) ?? [:]) == -32002)
    }

    @Test func agentRegisterAndResetFromOthersAreForbidden() throws {
        let users = TestUsers()
        defer { users.remove() }
        let user = try users.user("x")
        let daemon = try PolicyDaemon(policy: "[policy]\nprompt = \"deny\"\n")
        defer { daemon.finish() }
        try daemon.start()

        let register = try TestUsers.cli(user, ["call", "agent.register", "--socket", daemon.socket])
        #expect(errorCode(jsonObject(register.stdout) ?? [:]) == -32030)
        #expect(errorReason(jsonObject(register.stdout) ?? [:]) == "forbidden")
        let reset = try TestUsers.cli(
            user, ["call", "authorization.reset", "--params", "{\"uid\": \(user.uid)}", "--socket", daemon.socket])
        #expect(errorCode(jsonObject(reset.stdout) ?? [:]) == -32030)

        // root is the configured admin: its reset works and the user is notDetermined again.
        _ = try TestUsers.cli(user, ["authorization", "request", "--socket", daemon.socket])
        let admin = try daemon.connect()
        #expect(try admin.call("authorization.reset", ["uid": Int(user.uid)])["result"] as? Bool == true)
        let status = try TestUsers.cli(user, ["authorization", "status", "--json", "--socket", daemon.socket])
        #expect(jsonObject(status.stdout)?["status"] as? String == "notDetermined")
    }

    @Test func aClaimedIdentityGetsNothingMore() throws {
        let users = TestUsers()
        defer { users.remove() }
        let user = try users.user("c")
        let daemon = try PolicyDaemon(
            policy: """
                [policy]
                prompt = "deny"
                [[policy.rules]]
                uid = 0
                status = "authorized"
                """)
        defer { daemon.finish() }
        try daemon.start()

        for params in ["{\"uid\": 0}", "{\"accuracy\": \"full\", \"uid\": 0, \"user\": \"root\"}"] {
            let claim = try TestUsers.cli(
                user, ["call", "authorization.request", "--params", params, "--socket", daemon.socket])
            let response = jsonObject(claim.stdout) ?? [:]
            #expect(errorCode(response) == -32602)
            #expect(((response["error"] as? [String: Any])?["message"] as? String)?.contains("uid") == true)
        }
        let status = try TestUsers.cli(user, ["call", "authorization.status", "--socket", daemon.socket])
        let client = resultObject(jsonObject(status.stdout) ?? [:])?["client"] as? [String: Any]
        #expect(client?["uid"] as? Int == Int(user.uid))
        #expect(client?["gid"] as? Int == Int(user.gid))
        let get = try TestUsers.cli(
            user, ["call", "location.get", "--params", "{\"uid\": 0}", "--socket", daemon.socket])
        #expect(errorCode(jsonObject(get.stdout) ?? [:]) == -32602)
        let plain = try TestUsers.cli(user, ["call", "location.get", "--socket", daemon.socket])
        #expect(errorCode(jsonObject(plain.stdout) ?? [:]) == -32001)
    }
}

/// The kernel's identity for an in-process client (any uid).
@Suite struct KernelIdentityIntegrationTests {
    @Test func theAnswerCarriesTheKernelsIdentityNotTheClaimedOne() throws {
        let daemon = try PolicyDaemon(policy: "[policy]\nprompt = \"deny\"\n")
        defer { daemon.finish() }
        try daemon.start()
        let client = try daemon.connect()
        let claim = try client.call("authorization.request", ["uid": 4242, "pid": 1], id: 1)
        #expect(errorCode(claim) == -32602)
        let status = try client.call("authorization.status", id: 2)
        let identity = resultObject(status)?["client"] as? [String: Any]
        #expect(identity?["uid"] as? Int == Int(getuid()))
        #expect(identity?["pid"] as? Int == Int(getpid()))
    }
}
