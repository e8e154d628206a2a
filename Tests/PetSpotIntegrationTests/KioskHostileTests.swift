import Foundation
import Testing
import TestSupport

/// The built `petspot-kiosk` against hostile local users (issue 29 items 2
/// and 3): other uids on the station, slow connections, an upload flood,
/// a GPS flood. Real processes, real uids (`setpriv`), a real daemon for
/// the GPS button. Each client is `Tests/Fixtures/kiosk_client.py`, which
/// prints what the kiosk answered; these tests decide what that means.
@Suite(
    "The kiosk against hostile local users", .serialized,
    .enabled(if: TestUsers.available, "needs root (useradd, setpriv)"))
struct KioskHostileTests {
    /// A kiosk (`allowed_users` = one throwaway user) asking a simulated daemon.
    final class Station: @unchecked Sendable {
        let users = TestUsers()
        let browser: TestUsers.User
        let directory: TemporaryDirectory
        let daemon: DaemonProcess
        let kiosk: ChildProcess
        let port = freeLoopbackPort()

        init() throws {
            browser = try users.user("kb")
            directory = try TemporaryDirectory(prefix: "psk")
            daemon = try Fixtures.daemon(scenario: Fixtures.singleFix)
            let configuration = try directory.write(
                "kiosk.toml",
                """
                [kiosk]
                listen = "127.0.0.1:\(port)"
                allowed_users = ["\(browser.name)"]
                [location]
                socket = "\(daemon.socketPath)"
                [outbox]
                path = "\(directory.path)/outbox"
                """)
            kiosk = try ChildProcess(
                RepositoryPaths.executable("petspot-kiosk"), ["--config", configuration],
                environment: ["XDG_CACHE_HOME": directory.file("cache")])
            guard kiosk.waitForStderr(containing: "serving on", timeout: 60) else {
                throw RawSocket.Failure.timedOut("the kiosk never served: \(kiosk.errors())")
            }
        }

        /// Runs a `kiosk_client.py` scenario as `uid` (and `gid`), returning its JSON.
        func client(uid: UInt32, gid: UInt32, _ arguments: [String]) throws -> [String: Any] {
            let run = try ChildProcess.run(
                "/usr/bin/setpriv",
                [
                    "--reuid=\(uid)", "--regid=\(gid)", "--clear-groups", "--", "/usr/bin/python3", Self.script,
                    String(port),
                ] + arguments, timeout: 120)
            let line = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
            guard run.status == 0,
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
            else {
                throw RawSocket.Failure.timedOut("kiosk_client.py \(arguments): \(run)")
            }
            return object
        }

        /// The kiosk browser's account.
        func asBrowser(_ arguments: [String]) throws -> [String: Any] {
            try client(uid: browser.uid, gid: browser.gid, arguments)
        }

        /// `nobody`: a local user the kiosk must not serve.
        func asNobody(_ arguments: [String]) throws -> [String: Any] {
            try client(uid: 65534, gid: 65534, arguments)
        }

        /// Descriptors the kiosk process holds now.
        var kioskDescriptors: Int {
            (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(kiosk.pid)/fd").count) ?? -1
        }

        static var script: String { RepositoryPaths.root + "/Tests/Fixtures/kiosk_client.py" }

        deinit {
            kiosk.signal(SIGTERM)
            _ = kiosk.wait(timeout: 20)
            _ = daemon.stop()
            directory.remove()
            users.remove()
        }
    }

    /// Item 2: a user the kiosk does not serve gets no page and no position (before: the whole flow, and
    /// the station's full-accuracy position from the GPS button); the allowed user gets both.
    @Test func onlyTheKioskBrowsersAccountIsServed() throws {
        let station = try Station()
        let stranger = try station.asNobody(["visit"])
        #expect((stranger["welcome"] as? String)?.hasPrefix("refused") == true, "\(stranger)")
        #expect((stranger["details"] as? String)?.hasPrefix("refused") == true, "\(stranger)")
        #expect(stranger["gps"] == nil)
        #expect(!"\(stranger)".contains("-33.8688"))

        let browser = try station.asBrowser(["visit"])
        #expect(browser["welcome"] as? Int == 200, "\(browser)")
        #expect(browser["details"] as? Int == 200, "\(browser)")
        let gps = try #require(browser["gps"] as? [Any], "\(browser)")
        #expect(gps.first as? Int == 200)
        let answer = try #require(gps.last as? [String: Any])
        #expect(answer["outcome"] as? String == "filled", "\(answer)")
        #expect((answer["latitude"] as? String)?.hasPrefix("-33.8688") == true, "\(answer)")

        // Counted, and shown to the operator (root is always served).
        let status = try #require(loopbackGet("http://127.0.0.1:\(station.port)/admin/status"))
        let refused = try #require(Self.cell(status, "admin.refusedConnections"), "\(status)")
        #expect((Int(refused) ?? 0) >= 2, "refused: \(refused)")
    }

    /// Item 3: 1,500 slow connections of a stranger are closed at once, so the kiosk holds none of
    /// them (before: each held a descriptor until the process ran out) and the browser's pages are served.
    @Test func fifteenHundredSlowConnectionsDoNotStarveTheBrowser() throws {
        let station = try Station()
        let baseline = station.kioskDescriptors
        let holder = try ChildProcess(
            "/usr/bin/setpriv",
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", "--", "/usr/bin/python3", Station.script,
                String(station.port), "hold", "1500",
            ])
        defer {
            holder.closeInput()
            _ = holder.wait(timeout: 30)
        }
        try #require(holder.waitForStdout(containing: "closedByKiosk", timeout: 120), "\(holder.errors())")
        let held = try #require(
            try JSONSerialization.jsonObject(
                with: Data((holder.output().split(separator: "\n").last ?? "").utf8)) as? [String: Any])
        #expect(held["closedByKiosk"] as? Int == 1500, "\(held)")
        // While the stranger still holds its side of every connection:
        let descriptors = station.kioskDescriptors
        #expect(descriptors < baseline + 50, "the kiosk holds \(descriptors) descriptors (\(baseline) before)")
        let browser = try station.asBrowser(["visit"])
        #expect(browser["welcome"] as? Int == 200, "\(browser)")
        #expect(browser["details"] as? Int == 200, "\(browser)")
    }

    /// Item 3: an upload with no token is answered before its body is sent (before: the kiosk read
    /// all of it first); a second parallel upload of one visit is refused at once (before: all eight
    /// were read into memory together).
    @Test func uploadsAreBoundedBeforeTheirBodiesAreRead() throws {
        let station = try Station()
        let tokenless = try station.asBrowser(["tokenless-upload"])
        #expect(tokenless["answeredBeforeBody"] as? Int == 403, "\(tokenless)")
        let parallel = try station.asBrowser(["parallel-uploads", "8"])
        let statuses = try #require(parallel["answeredAtOnce"] as? [Int], "\(parallel)")
        #expect(statuses.count == 7 && statuses.allSatisfy { $0 == 503 }, "\(parallel)")
    }

    /// Item 3: 100 GPS taps of one visit at once ask the daemon at most `GPSTapBudget.burst` (3) times
    /// (before: 100 daemon requests); the rest read "busy".
    @Test func aGPSFloodAsksTheDaemonAFewTimes() throws {
        let station = try Station()
        let flood = try station.asBrowser(["gps-flood", "100"])
        #expect(flood["taps"] as? Int == 100, "\(flood)")
        let kinds = try #require(flood["kinds"] as? [String: Int], "\(flood)")
        #expect((1...3).contains(kinds["filled", default: 0]), "\(flood)")
        #expect(kinds["filled", default: 0] + kinds["busy", default: 0] == 100, "\(flood)")
    }

    /// Item 3: page loads without a tap never end a visit in progress (before: 40 cookie-less GET /
    /// each opened a visit and pushed out a visitor who had a photo).
    @Test func pageLoadsDoNotEvictAVisitor() throws {
        let station = try Station()
        let evict = try station.asBrowser(["evict", "40"])
        #expect(evict["stillThere"] as? Bool == true, "\(evict)")
    }

    /// Item 7: `/admin/status` answers only the loopback names: a page whose own name was re-bound to
    /// 127.0.0.1 (DNS rebinding) asks with that name and gets 403 (before: the page).
    @Test func theStatusPageAnswersLoopbackNamesOnly() throws {
        let station = try Station()
        let ask = """
            import http.client, sys
            c = http.client.HTTPConnection("127.0.0.1", int(sys.argv[1]), timeout=30)
            c.putrequest("GET", "/admin/status", skip_host=True)
            c.putheader("Host", sys.argv[2])
            c.endheaders()
            print(c.getresponse().status)
            """
        for (host, expected) in [
            ("petspot.attacker.example:\(station.port)", 403), ("127.0.0.1.nip.example", 403),
            ("127.0.0.1:\(station.port)", 200), ("localhost:\(station.port)", 200),
        ] {
            let run = try ChildProcess.run("/usr/bin/python3", ["-c", ask, String(station.port), host], timeout: 60)
            #expect(run.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == String(expected), "\(host): \(run)")
        }
    }

    /// The text of the element with `id` in an HTML page.
    static func cell(_ html: String, _ id: String) -> String? {
        guard let start = html.range(of: "id=\"\(id)\">") else { return nil }
        let rest = html[start.upperBound...]
        return rest.firstIndex(of: "<").map { String(rest[..<$0]) }
    }
}
