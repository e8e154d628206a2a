import Glibc
import Foundation
import Testing
import TestSupport

/// Hardening (issue 13) items 16-19 and 23 against the real daemon and CLI:
/// who may pose as gpsd, a corrupt decision store, state directory trust,
/// terminal injection, and the admin's reset command.
@Suite(.serialized, .enabled(if: TestUsers.available, "needs root to run processes as other users (setpriv, useradd)"))
struct StateAndSourceHardeningTests {
    /// A stand-in gpsd: prints its port, then sends every connection a
    /// VERSION line and a TPV every 0.1 s from a device whose name holds a
    /// terminal escape.
    static let fakeGpsd = #"""
        import socket, sys, threading, time
        server = socket.socket()
        server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        server.bind(("127.0.0.1", 0)); server.listen(8)
        print(server.getsockname()[1], flush=True)
        def serve(c):
            try:
                c.sendall(b'{"class":"VERSION","release":"3.22","rev":"fake","proto_major":3,"proto_minor":14}\n')
                while True:
                    c.sendall(b'{"class":"TPV","device":"/dev/fake\\u001b[2J\\u009b31m","mode":2,"lat":52.1,"lon":21.0,"eph":5}\n')
                    time.sleep(0.1)
            except OSError:
                pass
        while True:
            c, _ = server.accept()
            threading.Thread(target=serve, args=(c,), daemon=True).start()
        """#

    /// Starts the fake gpsd as `user`; returns it and its port.
    static func startFakeGpsd(as user: TestUsers.User, in directory: TemporaryDirectory) throws -> (ChildProcess, Int) {
        let script = try directory.write("fake-gpsd.py", fakeGpsd)
        chmod(script, 0o644)
        let child = try ChildProcess(
            "/usr/bin/setpriv", TestUsers.asUser(user, ["/usr/bin/python3", "-u", script]))
        guard child.waitForStdout(containing: "\n", timeout: 60),
            let port = Int(child.output().split(separator: "\n").first ?? "")
        else {
            child.terminate()
            throw PolicyTestError("the fake gpsd did not start: \(child.errors())")
        }
        return (child, port)
    }

    /// The daemon on a gpsd source at `port` (owner key given when not nil).
    static func gpsdDaemon(port: Int, owner: String?) throws -> PolicyDaemon {
        let daemon = try PolicyDaemon(policy: "")
        try daemon.directory.write(
            "locationd.toml",
            """
            [daemon]
            socket = "\(daemon.socket)"
            socket_mode = "0666"
            state_dir = "\(daemon.stateDirectory)"

            [source]
            kind = "gpsd"

            [source.gpsd]
            port = \(port)
            reconnect_max = 0.5
            \(owner.map { "owner = \"\($0)\"" } ?? "")

            [policy]
            default = "authorized"
            """)
        return daemon
    }

    /// Polls `daemon.status` until `condition` holds on its `source`.
    static func source(
        of daemon: PolicyDaemon, until condition: ([String: Any]) -> Bool
    ) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(60)
        var last: [String: Any] = [:]
        while Date() < deadline {
            last = resultObject(try daemon.connect().call("daemon.status"))?["source"] as? [String: Any] ?? [:]
            if condition(last) { return last }
            usleep(50_000)
        }
        throw PolicyTestError("source status never matched; last: \(last)")
    }

    /// Item 16: a port squatter (any user but root and `owner`) is refused,
    /// and `daemon.status` says who owns the port.
    @Test func item16_aGpsdPortOwnedBySomeoneElseIsRefused() throws {
        let users = TestUsers()
        defer { users.remove() }
        let squatter = try users.user("sq")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o755)
        let (fake, port) = try Self.startFakeGpsd(as: squatter, in: directory)
        defer { fake.terminate() }
        let daemon = try Self.gpsdDaemon(port: port, owner: nil)
        defer { daemon.finish() }
        try daemon.start()

        let source = try Self.source(of: daemon) { ($0["reason"] as? String)?.contains("belongs to uid") == true }
        let reason = source["reason"] as? String ?? ""
        #expect(reason.contains("uid \(squatter.uid) (\(squatter.name))"), "\(reason)")
        #expect(reason.contains("not root or gpsd"))
        #expect(source["connected"] as? Bool == false)
        #expect(source["fixes"] as? Int == 0)
        let answer = try daemon.connect().call("location.get", ["timeout": 1])
        #expect(errorReason(answer) == "sourceUnavailable", "\(answer)")
        // The human status says it too.
        let status = try ChildProcess.run(
            RepositoryPaths.executable("petspot-location"), ["status", "--socket", daemon.socket])
        #expect(status.stdout.contains("source down: refused gpsd"), "\(status.stdout)")
    }

    /// Items 16 and 19: the configured owner is trusted; gpsd's device
    /// string, which holds escapes, reaches the terminal escaped.
    @Test func item16_theConfiguredOwnerIsTrusted_item19_andTheDeviceNameIsEscaped() throws {
        let users = TestUsers()
        defer { users.remove() }
        let owner = try users.user("gp")
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        chmod(directory.path, 0o755)
        let (fake, port) = try Self.startFakeGpsd(as: owner, in: directory)
        defer { fake.terminate() }
        let daemon = try Self.gpsdDaemon(port: port, owner: owner.name)
        defer { daemon.finish() }
        try daemon.start()

        let source = try Self.source(of: daemon) { ($0["fixes"] as? Int ?? 0) > 0 }
        #expect(source["connected"] as? Bool == true)
        #expect((source["device"] as? String)?.contains("\u{1B}[2J") == true)
        let status = try ChildProcess.run(
            RepositoryPaths.executable("petspot-location"), ["status", "--socket", daemon.socket])
        #expect(status.status == 0)
        #expect(!status.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B }, "\(status.stdout)")
        #expect(status.stdout.contains("/dev/fake\\e[2J\\u{009b}31m"), "\(status.stdout)")
        let json = try ChildProcess.run(
            RepositoryPaths.executable("petspot-location"), ["status", "--json", "--socket", daemon.socket])
        #expect(!json.stdout.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x9B })
        #expect(
            (jsonObject(json.stdout)?["source"] as? [String: Any])?["device"] as? String == source["device"] as? String)
    }

    /// Item 19: planted audit records print escaped, in text and JSON.
    @Test func item19_auditOutputEscapesControlCharacters() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let record =
            #"{"time":"2026-11-25T10:00:00Z","method":"location.get","client":{"uid":1000,"gid":1000,"pid":7,"#
            + #""executable":"/tmp/x\u001b]0;owned\u0007\u001b[1A","unit":"evil\u009b2J.service"},"status":"authorized"}"#
        let file = try directory.write("audit.jsonl", record + "\n" + "raw \u{1B}[31m not json\n")
        let text = try ChildProcess.run(RepositoryPaths.executable("petspot-location"), ["audit", "--file", file])
        #expect(text.status == 0)
        #expect(!text.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x9B })
        #expect(text.stdout.contains("exe=/tmp/x\\e]0;owned\\x07\\e[1A"), "\(text.stdout)")
        #expect(text.stdout.contains("(unreadable record) raw \\e[31m not json"))
        let json = try ChildProcess.run(
            RepositoryPaths.executable("petspot-location"), ["audit", "--json", "--file", file])
        #expect(!json.stdout.unicodeScalars.contains { $0.value < 0x20 && $0 != "\n" || $0.value == 0x9B })
        let first = try #require(jsonObject(String(json.stdout.split(separator: "\n")[0])))
        #expect((first["client"] as? [String: Any])?["unit"] as? String == "evil\u{9B}2J.service")
    }

    /// Item 17: a corrupt decisions.json is kept aside, nobody is asked while
    /// it is quarantined, status says so, and a good file plus a reload ends it.
    @Test func item17_aCorruptDecisionStoreFailsClosedUntilRestored() throws {
        let daemon = try PolicyDaemon(policy: "[policy]\ndefault = \"notDetermined\"\nprompt = \"allow\"\n")
        defer { daemon.finish() }
        try FileManager.default.createDirectory(
            atPath: daemon.stateDirectory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let corrupt = #"{"version":1,"decisions":{"0":{"status":"den"#
        try corrupt.write(toFile: daemon.decisionsFile, atomically: false, encoding: .utf8)
        try daemon.start()

        // Root's denial may be in that file: root is not asked, and nothing is decided for it.
        let request = try daemon.connect().call("authorization.request")
        #expect(errorReason(request) == "promptUnavailable", "\(request)")
        #expect(
            resultObject(try daemon.connect().call("authorization.status"))?["status"] as? String == "notDetermined")
        let decisions = try #require(
            resultObject(try daemon.connect().call("daemon.status"))?["decisions"] as? [String: Any])
        #expect(decisions["state"] as? String == "quarantined")
        let movedTo = try #require(decisions["movedTo"] as? String)
        #expect(movedTo.hasPrefix(daemon.decisionsFile + ".corrupt-"))
        #expect(try String(contentsOfFile: movedTo, encoding: .utf8) == corrupt)
        #expect(
            !FileManager.default.fileExists(atPath: daemon.decisionsFile), "the store was written while quarantined")
        let status = try ChildProcess.run(
            RepositoryPaths.executable("petspot-location"), ["status", "--socket", daemon.socket])
        #expect(status.stdout.contains("remembered decisions QUARANTINED"), "\(status.stdout)")
        #expect(daemon.audit.contains("\"method\":\"decisions.quarantined\""))

        // The administrator restores the file and reloads.
        try #"{"version":1,"decisions":{"0":{"status":"denied"}}}"#.write(
            toFile: daemon.decisionsFile, atomically: false, encoding: .utf8)
        try daemon.reload { socket in
            (resultObject(try socket.call("daemon.status"))?["decisions"] as? [String: Any])?["state"] as? String
                == "ok"
        }
        let restored = try #require(resultObject(try daemon.connect().call("authorization.status")))
        #expect(restored["status"] as? String == "denied")
        #expect(restored["decidedBy"] as? String == "decision")
        #expect(daemon.audit.contains("\"method\":\"decisions.restored\""))
    }

    /// Item 18: a state directory that is not the daemon's own, or that
    /// others may write, or that is a symbolic link, stops the start.
    @Test(arguments: ["another owner", "group-writable", "world-writable", "symbolic link"])
    func item18_anUntrustedStateDirectoryIsRefused(_ kind: String) throws {
        let daemon = try PolicyDaemon(policy: "[policy]\ndefault = \"authorized\"\n")
        defer { daemon.finish() }
        let state = daemon.stateDirectory
        let expected: String
        switch kind {
        case "another owner":
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
            chmod(state, 0o700)
            chown(state, 65534, 65534)
            expected = "belongs to uid 65534"
        case "group-writable":
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
            chmod(state, 0o770)
            expected = "writable by its group"
        case "world-writable":
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false)
            chmod(state, 0o1777)
            expected = "writable by everyone"
        default:
            try FileManager.default.createDirectory(
                atPath: daemon.directory.file("elsewhere"), withIntermediateDirectories: false)
            chmod(daemon.directory.file("elsewhere"), 0o700)
            symlink(daemon.directory.file("elsewhere"), state)
            expected = "is a symbolic link"
        }
        let run = try ChildProcess.run(
            RepositoryPaths.executable("petspot-locationd"), ["--config", daemon.configPath])
        #expect(run.status == 1)
        #expect(run.stderr.contains(state) && run.stderr.contains(expected), "\(run.stderr)")
        #expect(!FileManager.default.fileExists(atPath: daemon.socket))
        #expect(!FileManager.default.fileExists(atPath: daemon.auditLog))
    }

    /// Item 18: files in the state directory are never followed through a symbolic link.
    @Test func item18_aPlantedAuditLogLinkIsNotFollowed() throws {
        let daemon = try PolicyDaemon(policy: "[policy]\ndefault = \"authorized\"\n")
        defer { daemon.finish() }
        try FileManager.default.createDirectory(
            atPath: daemon.stateDirectory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        let victim = try daemon.directory.write("victim", "keep me\n")
        symlink(victim, daemon.auditLog)
        try daemon.start()
        let answer = try daemon.connect().call("location.get")
        #expect(resultObject(answer)?["latitude"] != nil, "\(answer)")
        daemon.stop()
        #expect(try String(contentsOfFile: victim, encoding: .utf8) == "keep me\n")
        #expect(daemon.logs.contains("Too many levels of symbolic links"), "\(daemon.logs)")
    }

    /// Item 18: the demo's state is in a fresh private folder, gone after the stop.
    @Test func item18_theDemoUsesAFreshPrivateFolder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The old predictable name, planted by someone else: irrelevant now.
        try FileManager.default.createDirectory(
            atPath: directory.file("petspot-demo-\(getuid())"), withIntermediateDirectories: false)
        let demo = try ChildProcess(
            RepositoryPaths.executable("petspot-locationd"), ["--demo"],
            environment: ["TMPDIR": directory.path, "XDG_RUNTIME_DIR": ""])
        defer { demo.terminate() }
        #expect(demo.waitForStderr(containing: "serving", timeout: 60))
        let line = try #require(demo.errors().split(separator: "\n").first { $0.contains("serving") })
        let socket = try #require(line.split(separator: " ").first { $0.hasPrefix("socket=") }).dropFirst(
            "socket=".count)
        let folder = String(socket[..<socket.lastIndex(of: "/")!])
        #expect(
            folder.hasPrefix(directory.file("petspot-demo."))
                && folder.count == directory.file("petspot-demo.").count + 6)
        var info = stat()
        #expect(lstat(folder, &info) == 0 && info.st_mode & 0o777 == 0o700 && info.st_uid == geteuid())
        let answer = try RawSocket(path: String(socket)).call("location.get")
        #expect(resultObject(answer)?["latitude"] != nil)
        demo.signal(SIGTERM)
        #expect(demo.wait(timeout: 60) == 0)
        #expect(!FileManager.default.fileExists(atPath: folder))
    }

    /// Item 23: `petspot-location authorization reset` by uid or user name,
    /// for admins only.
    @Test func item23_authorizationResetByUserOrUid() throws {
        let users = TestUsers()
        defer { users.remove() }
        let user = try users.user("rs")
        let daemon = try PolicyDaemon(policy: "[policy]\ndefault = \"notDetermined\"\nprompt = \"allow\"\n")
        defer { daemon.finish() }
        try daemon.start()
        let cli = RepositoryPaths.executable("petspot-location")

        #expect(try TestUsers.cli(user, ["authorization", "request", "--socket", daemon.socket]).status == 0)
        #expect(try String(contentsOfFile: daemon.decisionsFile, encoding: .utf8).contains("\"\(user.uid)\""))
        // Not an admin: refused (exit 3), nothing forgotten.
        let refused = try TestUsers.cli(
            user, ["authorization", "reset", "--uid", "\(user.uid)", "--socket", daemon.socket])
        #expect(refused.status == 3, "\(refused.stderr)")
        #expect(refused.stderr.contains("forbidden"))
        #expect(try TestUsers.cli(user, ["authorization", "status", "--socket", daemon.socket]).status == 0)
        // Root, by name.
        let reset = try ChildProcess.run(
            cli, ["authorization", "reset", "--user", user.name, "--socket", daemon.socket])
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stdout.contains("uid \(user.uid)"))
        #expect(try !String(contentsOfFile: daemon.decisionsFile, encoding: .utf8).contains("\"\(user.uid)\""))
        let after = try TestUsers.cli(user, ["authorization", "status", "--socket", daemon.socket])
        #expect(after.status == 3 && after.stdout.hasPrefix("notDetermined"), "\(after.stdout)")
        // By uid, then usage errors.
        #expect(try TestUsers.cli(user, ["authorization", "request", "--socket", daemon.socket]).status == 0)
        #expect(
            try ChildProcess.run(cli, ["authorization", "reset", "--uid", "\(user.uid)", "--socket", daemon.socket])
                .status == 0)
        #expect(try TestUsers.cli(user, ["authorization", "status", "--socket", daemon.socket]).status == 3)
        let unknown = try ChildProcess.run(
            cli, ["authorization", "reset", "--user", "nosuchuser-ps", "--socket", daemon.socket])
        #expect(unknown.status == 1 && unknown.stderr.contains("no user named nosuchuser-ps"))
        let neither = try ChildProcess.run(cli, ["authorization", "reset", "--socket", daemon.socket])
        #expect(neither.status == 1 && neither.stderr.contains("exactly one of --uid"))
        #expect(daemon.audit.contains("\"method\":\"authorization.reset\""))
    }
}
