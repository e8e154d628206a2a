import Glibc
import Foundation
import Testing
import TestSupport

/// Issue 29 item 8 against a real daemon: a process connects, hands the
/// connection to a child it forks, then execs a binary an `executable` rule
/// names, all before the daemon accepts. The daemon is frozen (SIGSTOP)
/// between the connect and the accept, so the exec always comes first: no
/// lucky schedule. The pin taken at accept then sees the named binary, yet
/// the connection was made, and is read, by an untrusted process.
@Suite(.serialized, .enabled(if: TestUsers.available, "needs root to run processes as other users (setpriv, useradd)"))
struct ConnectThenExecTests {
    /// The binary the rule names: any program the untrusted user may run.
    static let trusted = "/usr/bin/sleep"

    /// Connects to `argv[1]` and queues a `location.get` while the daemon is
    /// stopped; forks a child that keeps the connection; the parent (the
    /// process SO_PEERCRED names) execs the trusted binary, which inherits
    /// the connection too. The child waits for that exec (a close-on-exec
    /// pipe reaches end of file), says `ready PID`, then prints the answer it
    /// reads from the connection.
    static let attacker = #"""
        import os, socket, sys
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sys.argv[1])
        s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"location.get","params":{"timeout":30}}\n')
        os.set_inheritable(s.fileno(), True)
        r, w = os.pipe()  # both close-on-exec
        parent = os.getpid()
        if os.fork() == 0:
            os.close(w)
            os.read(r, 1)  # end of file: the parent's exec closed its end
            print("ready", parent, flush=True)
            s.settimeout(120)
            answer = b""
            while not answer.endswith(b"\n"):
                chunk = s.recv(65536)
                if not chunk:
                    break
                answer += chunk
            # One write(2) of the whole line (atomic on a pipe): under -u, print()
            # writes "answer:", the space and the text separately, and a reader
            # could see "answer:" alone.
            os.write(1, ("answer: " + answer.decode(errors="replace").strip() + "\n").encode())
            os._exit(0)
        os.close(r)
        os.execv(sys.argv[2], [sys.argv[2], "600"])
        """#

    @Test func issue29item08_aConnectionMadeBeforeAnExecGetsNoGrantByExecutable() throws {
        let users = TestUsers()
        defer { users.remove() }
        let untrusted = try users.user("x")
        let daemon = try PolicyDaemon(
            policy: """
                [policy]
                default = "denied"
                prompt = "deny"
                [[policy.rules]]
                executable = "\(Self.trusted)"
                status = "authorized"
                """)
        defer { daemon.finish() }
        try daemon.start()
        let script = try daemon.directory.write("connect-then-exec.py", Self.attacker)
        chmod(script, 0o644)
        // Frozen between the connect (the kernel completes it on the
        // listening socket's backlog) and the accept.
        let frozen = try #require(daemon.child)
        frozen.signal(SIGSTOP)
        var continued = false
        defer { if !continued { frozen.signal(SIGCONT) } }
        let client = try ChildProcess(
            "/usr/bin/setpriv",
            TestUsers.asUser(untrusted, ["/usr/bin/python3", "-u", script, daemon.socket, Self.trusted]))
        defer { client.terminate() }
        #expect(client.waitForStdout(containing: "ready", timeout: 60), "\(client.output())\(client.errors())")
        // The connecting process is the trusted binary now, still holding the connection.
        let execed = PeerIdentityProbe.executable(pid: client.pid)
        #expect(execed == Self.trusted, "the connecting process is \(execed ?? "unreadable")")
        frozen.signal(SIGCONT)
        continued = true

        #expect(client.waitForStdout(containing: "answer:", timeout: 90), "\(client.output())\(client.errors())")
        let line = client.output().split(separator: "\n").first { $0.hasPrefix("answer:") }.map(String.init) ?? ""
        let answer = jsonObject(String(line.dropFirst("answer:".count)).trimmingCharacters(in: .whitespaces))
        print("the untrusted holder read: \(line)")
        #expect(answer?["result"] == nil, "the untrusted holder was served a fix: \(line)")
        // The holder reads the denial. (A run once read "answer:" alone: the script
        // printed the line in three writes, and the test read between them.)
        #expect(answer.flatMap(errorReason) == "denied", "\(line)\n\(daemon.logs)")
        // The daemon did see the trusted binary at accept: the decision was
        // taken on it, not on an unreadable or untrusted executable.
        let record = daemon.audit.split(separator: "\n").compactMap { jsonObject(String($0)) }
            .first { $0["method"] as? String == "location.get" }
        let recorded = record?["client"] as? [String: Any]
        #expect(recorded?["executable"] as? String == Self.trusted, "\(daemon.audit)")
        #expect(recorded?["uid"] as? Int == Int(untrusted.uid), "\(daemon.audit)")
        #expect(record?["status"] as? String == "denied", "\(daemon.audit)")
    }
}

/// `/proc/PID/exe` as the test sees it.
enum PeerIdentityProbe {
    static func executable(pid: Int32) -> String? {
        try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")
    }
}
