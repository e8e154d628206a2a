import Glibc
import Foundation
import Testing
import TestSupport

/// Hardening (issue 13) of prompts, agents and connection slots against a
/// real daemon, with hostile clients running as other real uids.
@Suite(.serialized, .enabled(if: TestUsers.available, "needs root to run clients as other users (setpriv, useradd)"))
struct PromptHardeningTests {
    /// A Python client run as another user: opens `connections` connections,
    /// sends `perConnection` `authorization.request`s on each, prints `sent`,
    /// then every answer's status (or error reason) as it arrives, then `done`.
    static let requester = #"""
        import json, socket, sys
        path, connections, per = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
        socks = []
        for c in range(connections):
            s = socket.socket(socket.AF_UNIX); s.connect(path); socks.append(s)
            for i in range(per):
                s.sendall((json.dumps({"jsonrpc": "2.0", "id": i, "method": "authorization.request"}) + "\n").encode())
        print("sent", flush=True)
        for s in socks:
            f = s.makefile("r")
            for i in range(per):
                m = json.loads(f.readline())
                r = m.get("result") or {}
                print(r.get("status") or m["error"]["data"]["reason"], flush=True)
        print("done", flush=True)
        """#

    static func runRequester(
        _ user: TestUsers.User, _ daemon: PolicyDaemon, connections: Int, each: Int
    ) throws
        -> ChildProcess
    {
        try daemon.directory.write("requester.py", Self.requester)
        return try ChildProcess(
            "/usr/bin/setpriv",
            TestUsers.asUser(
                user,
                ["/usr/bin/python3", daemon.directory.file("requester.py"), daemon.socket, "\(connections)", "\(each)"])
        )
    }

    /// Item 3: 240 requests from one uid on 4 connections reach the agent as
    /// one prompt, and its one answer serves them all.
    @Test func item03_promptsFromOneUidAreCoalesced() throws {
        let users = TestUsers()
        defer { users.remove() }
        let user = try users.user("f")
        let daemon = try PolicyDaemon(policy: "[policy]\nprompt = \"agent\"\nprompt_timeout = 30\n")
        defer { daemon.finish() }
        try daemon.start()
        let agent = try daemon.connect()
        #expect(try agent.call("agent.register")["result"] as? Bool == true)

        let flood = try Self.runRequester(user, daemon, connections: 4, each: 60)
        defer { flood.terminate() }
        #expect(flood.waitForStdout(containing: "sent", timeout: 60))
        let prompt = try agent.message(method: "agent.prompt", timeout: 60)
        // Every request has reached the daemon; still one prompt only.
        #expect(agent.staysSilent(for: 1), "a second prompt reached the agent")
        try agent.sendJSON(["jsonrpc": "2.0", "id": prompt["id"] ?? 0, "result": ["decision": "allow"]])
        #expect(flood.waitForStdout(containing: "done", timeout: 60))
        let answers = flood.output().split(separator: "\n").filter { $0 != "sent" && $0 != "done" }
        #expect(answers.count == 240)
        #expect(answers.allSatisfy { $0 == "authorized" }, "\(Set(answers))")
        #expect(agent.staysSilent(for: 0.5))
    }

    /// Item 3: a requester that leaves withdraws its interest; with nobody
    /// left waiting the prompt is withdrawn (`agent.cancel`).
    @Test func item03_aPromptNobodyWaitsForIsWithdrawn() throws {
        let users = TestUsers()
        defer { users.remove() }
        let user = try users.user("w")
        let daemon = try PolicyDaemon(policy: "[policy]\nprompt = \"agent\"\nprompt_timeout = 60\n")
        defer { daemon.finish() }
        try daemon.start()
        let agent = try daemon.connect()
        #expect(try agent.call("agent.register")["result"] as? Bool == true)

        let requester = try Self.runRequester(user, daemon, connections: 2, each: 3)
        let prompt = try agent.message(method: "agent.prompt", timeout: 60)
        #expect(requester.waitForStdout(containing: "sent", timeout: 60))
        requester.signal(SIGKILL)
        _ = requester.wait(timeout: 30)
        let cancel = try agent.message(method: "agent.cancel", timeout: 60)
        #expect((cancel["params"] as? [String: Any])?["id"] as? Int == prompt["id"] as? Int)
        // The withdrawn prompt's late answer changes nothing.
        try agent.sendJSON(["jsonrpc": "2.0", "id": prompt["id"] ?? 0, "result": ["decision": "allow"]])
        let status = try TestUsers.cli(user, ["authorization", "status", "--json", "--socket", daemon.socket])
        #expect(jsonObject(status.stdout)?["status"] as? String == "notDetermined")
    }

    /// Item 6: an agent that does not read never holds up its replacement;
    /// its prompts move to the new agent and its answers no longer count.
    @Test func item06_aStuckAgentDoesNotBlockItsReplacement() async throws {
        let users = TestUsers()
        defer { users.remove() }
        let user = try users.user("r")
        let daemon = try PolicyDaemon(policy: "[policy]\nprompt = \"agent\"\nprompt_timeout = 60\n")
        defer { daemon.finish() }
        try daemon.start()
        let stuck = try daemon.connect()
        #expect(try stuck.call("agent.register")["result"] as? Bool == true)
        // The old agent stops reading with its socket full of answers.
        let status = #"{"jsonrpc":"2.0","id":5,"method":"daemon.status"}"#
        _ = stuck.sendUntilStalled(Array(String(repeating: status + "\n", count: 20_000).utf8))
        stuck.waitUntilIncomingSettles()

        let requester = try Self.runRequester(user, daemon, connections: 1, each: 1)
        defer { requester.terminate() }
        #expect(requester.waitForStdout(containing: "sent", timeout: 60))
        #expect(await eventually(within: .seconds(60)) { daemon.logs.contains("asking the prompt agent") })

        let replacement = try daemon.connect()
        let started = Date()
        try replacement.sendRequest("agent.register", id: 1)
        // The registration's answer and the prompt moved over arrive in either order.
        var registered = false
        var moved: [String: Any] = [:]
        while !registered || moved.isEmpty {
            let message = try #require(try replacement.readJSON(timeout: 30) as? [String: Any])
            if message["method"] as? String == "agent.prompt" { moved = message }
            if message["id"] as? Int == 1 { registered = message["result"] as? Bool == true }
        }
        // Held up, it would wait for the stuck agent (forever) or the 60 s prompt timeout.
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(((moved["params"] as? [String: Any])?["client"] as? [String: Any])?["uid"] as? Int == Int(user.uid))
        // The stuck agent's answer to that prompt no longer counts.
        _ = stuck.sendUntilStalled(
            Array(
                (#"{"jsonrpc":"2.0","id":"# + "\(moved["id"] as? Int ?? 0)" + #","result":{"decision":"deny"}}"# + "\n")
                    .utf8))
        try replacement.sendJSON(["jsonrpc": "2.0", "id": moved["id"] ?? 0, "result": ["decision": "allow"]])
        #expect(requester.waitForStdout(containing: "done", timeout: 60))
        #expect(requester.output().contains("authorized"))
        #expect(daemon.audit.contains(#""method":"agent.replaced""#))
    }

    /// Item 2: one uid cannot take every slot: past its share it is refused,
    /// while another uid and the prompt agent still get in; an idle
    /// connection is closed after `idle_timeout`.
    @Test func item02_oneUidCannotTakeEverySlot() throws {
        let users = TestUsers()
        defer { users.remove() }
        let hog = try users.user("h")
        let other = try users.user("o")
        let daemon = try PolicyDaemon(policy: "[policy]\nprompt = \"deny\"\n")
        defer { daemon.finish() }
        try daemon.writeConfiguration(
            policy: "[policy]\nprompt = \"deny\"\n",
            daemon: "max_clients = 16\nmax_clients_per_uid = 4\nidle_timeout = 4\n")
        try daemon.start()
        // The hog opens 12 idle connections; 4 are served, the rest told why.
        try daemon.directory.write(
            "hog.py",
            #"""
            import select, socket, sys, time
            socks = []
            for i in range(12):
                s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); socks.append(s)
            # Refused connections get one line, then end; held ones stay silent.
            # Waits for the 8 refusals (a loaded daemon may be slow to send them);
            # a ninth would show below, as a held connection that is not just closed.
            refused, deadline = set(), time.monotonic() + 60
            while len(refused) < 8 and time.monotonic() < deadline:
                ready, _, _ = select.select([s for s in socks if s not in refused], [], [], 0.1)
                for s in ready:
                    if b"tooManyClients" in s.recv(4096): refused.add(s)
            held = [s for s in socks if s not in refused]
            print("held", len(held), "refused", len(refused), flush=True)
            for s in held:
                s.settimeout(60)
                print("closed" if s.recv(1) == b"" else "open", flush=True)
            """#)
        let hogging = try ChildProcess(
            "/usr/bin/setpriv",
            TestUsers.asUser(hog, ["/usr/bin/python3", daemon.directory.file("hog.py"), daemon.socket]))
        defer { hogging.terminate() }
        #expect(hogging.waitForStdout(containing: "held 4 refused 8", timeout: 90), "\(hogging.output())")
        // Another user and the agent (root) are still served.
        let otherStatus = try TestUsers.cli(other, ["authorization", "status", "--json", "--socket", daemon.socket])
        #expect(jsonObject(otherStatus.stdout)?["status"] != nil, "\(otherStatus.stdout)\(otherStatus.stderr)")
        let agent = try daemon.connect()
        #expect(try agent.call("agent.register")["result"] as? Bool == true)
        // The hog's idle connections are closed after idle_timeout; the agent's is not.
        #expect(hogging.waitForStdout(containing: "closed\nclosed\nclosed\nclosed", timeout: 90), "\(hogging.output())")
        #expect(try agent.call("daemon.status", id: 2)["result"] != nil)
        #expect(daemon.logs.contains("max_clients_per_uid"))
    }

    /// Item 14: a group rule sees the groups the process holds, not the user
    /// database's: a member that dropped the group is not matched by it.
    @Test func item14_aGroupTheProcessDroppedDoesNotCount() throws {
        let users = TestUsers()
        defer { users.remove() }
        let group = try users.group("g")
        let member = try users.user("m", groups: [group])
        let daemon = try PolicyDaemon(
            policy: "[policy]\ndefault = \"denied\"\n[[policy.rules]]\ngroup = \"\(group)\"\nstatus = \"authorized\"\n")
        defer { daemon.finish() }
        try daemon.start()
        let status = [
            RepositoryPaths.executable("petspot-location"), "authorization", "status", "--json", "--socket",
            daemon.socket,
        ]
        let holding = try TestUsers.cli(member, Array(status.dropFirst()))
        #expect(jsonObject(holding.stdout)?["status"] as? String == "authorized", "\(holding.stdout)")
        let dropped = try ChildProcess.run(
            "/usr/bin/setpriv", ["--reuid=\(member.uid)", "--regid=\(member.gid)", "--clear-groups", "--"] + status,
            timeout: 60)
        #expect(jsonObject(dropped.stdout)?["status"] as? String == "denied", "\(dropped.stdout)")
    }
}
