import Glibc
import DeliveryTestSupport
import Foundation
import PetSpotOutbox
import PetSpotReport
import Testing
import TestSupport

/// A station on disk: kiosk.toml, a token file, an outbox, and the stand-in backend.
final class Station: @unchecked Sendable {
    static let token = "station-token"
    let work: TemporaryDirectory
    let receiver: HTTPReceiver
    var config: String { work.file("kiosk.toml") }
    var outboxDirectory: String { work.file("outbox") }

    init(retryInitial: Double = 0.1, retryMax: Double = 0.5, timeout: Double = 5) throws {
        work = try TemporaryDirectory(prefix: "station")
        receiver = try HTTPReceiver(token: Self.token)
        try (Self.token + "\n").write(toFile: work.file("token"), atomically: true, encoding: .utf8)
        try """
        [outbox]
        path = "outbox"

        [delivery]
        endpoint = "\(receiver.endpoint)"
        token_file = "token"
        timeout = \(timeout)
        retry_initial = \(retryInitial)
        retry_max = \(retryMax)
        """.write(toFile: config, atomically: true, encoding: .utf8)
    }

    /// Queues `count` reports (oldest first) from this process, then closes the outbox.
    func enqueue(_ count: Int) async throws -> [String] {
        let outbox = try Outbox.open(directory: outboxDirectory)
        defer { try? outbox.close() }
        let photo = ReportFixtures.photo(extra: 256 << 10)
        let path = try ReportFixtures.write(photo, to: work.path)
        var ids: [String] = []
        for index in 0..<count {
            let report = ReportFixtures.report(
                createdAt: Date(timeIntervalSince1970: 1_800_000_000 + Double(index)), photoBytes: photo.count)
            try await outbox.enqueue(report: report, photoFile: path)
            ids.append(report.id.uuidString.lowercased())
        }
        return ids
    }

    func entries() async throws -> [String: OutboxEntry] {
        let outbox = try Outbox.open(directory: outboxDirectory)
        defer { try? outbox.close() }
        return Dictionary(uniqueKeysWithValues: try await outbox.entries().map { ($0.id, $0) })
    }

    func report(
        _ arguments: [String], input: String? = nil, timeout: Double = 60
    ) throws -> (status: Int32?, stdout: String, stderr: String) {
        try ChildProcess.run(
            RepositoryPaths.executable("petspot-report"), arguments, input: input, timeout: timeout,
            environment: ["XDG_CACHE_HOME": work.file("cache")])
    }

    func remove() {
        receiver.remove()
        work.remove()
    }
}

@Suite("Delivery processes: kill -9 of the sender, the CLI", .serialized)
struct DeliveryProcessTests {
    /// Waits until the receiver logged a request with `outcome`.
    private func waitForRequest(_ station: Station, outcome: String, count: Int = 1) async -> Bool {
        await eventually(within: .seconds(60), every: .milliseconds(20)) {
            station.receiver.requests().filter { $0.outcome == outcome }.count >= count
        }
    }

    @Test func killNineDuringUploadsThenRestartDeliversEachOnce() async throws {
        // An upload timeout far above how long the test may take to see the held request
        // (on a loaded machine, seconds): the sender must still be waiting when it is killed.
        let station = try Station(timeout: 60)
        defer { station.remove() }
        let ids = try await station.enqueue(3)

        // 1: the backend has stored the first report and not answered yet.
        try station.receiver.plan(#"{"sequence": [{"do": "hold"}]}"#)
        let first = try ChildProcess(
            RepositoryPaths.executable("petspot-report"), ["send", "--config", station.config])
        #expect(await waitForRequest(station, outcome: "stored"), "\(first.errors())")
        first.signal(SIGKILL)
        _ = first.wait(timeout: 10)
        #expect(try await station.entries()[ids[0]]?.state == .delivering)

        // 2: killed again while the photo is half uploaded.
        try station.receiver.plan(#"{"sequence": [{"do": "stall"}]}"#)
        let second = try ChildProcess(
            RepositoryPaths.executable("petspot-report"), ["send", "--config", station.config])
        #expect(await waitForRequest(station, outcome: "stall"), "\(second.errors())")
        second.signal(SIGKILL)
        _ = second.wait(timeout: 10)

        // 3: a clean run delivers everything; the first report's second upload is a duplicate (409).
        station.receiver.release()
        try station.receiver.plan(#"{"sequence": []}"#)
        let run = try station.report(["send", "--config", station.config, "--once", "--within", "60"], timeout: 120)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("3 delivered, 0 pending, 0 rejected"), "\(run.stderr)")
        let entries = try await station.entries()
        #expect(ids.allSatisfy { entries[$0]?.state == .delivered })
        #expect(entries[ids[0]]?.lastStatus == 409 && entries[ids[0]]?.backendReference == "srv-1")
        let requests = station.receiver.requests()
        // None lost, none duplicated after de-duplication.
        #expect(station.receiver.storedKeys() == Set(ids))
        for id in ids { #expect(requests.filter { $0.key == id && $0.outcome == "stored" }.count == 1) }
        #expect(requests.filter { $0.key == ids[0] }.map(\.outcome) == ["stored", "stall", "duplicate"])
    }

    @Test func foundQueuesAndSendOnceExitsByWhatIsLeft() async throws {
        let station = try Station()
        defer { station.remove() }
        let photo = try ReportFixtures.write(ReportFixtures.photo(extra: 100), to: station.work.path, name: "found.png")
        let scenario = try station.work.write(
            "scenario.json",
            #"{"steps": [{"fix": {"latitude": 52.2297, "longitude": 21.0122, "horizontalAccuracy": 5}}]}"#)
        let answers = [
            photo, "today", "dog", "Beagle", "female", "3", "gps", "123456789012345", "Rex", "Brown collar",
            "600123456", "finder@example.com", "", "7654321", "ul. Kwiatowa 7",
        ]
        let found = try station.report(
            ["found", "--config", station.config, "--scenario", scenario], input: answers.joined(separator: "\n") + "\n"
        )
        #expect(found.status == 0, "\(found.stdout)\n\(found.stderr)")
        #expect(found.stdout.contains("(queued for delivery)"))

        let listing = try station.report(["outbox", "--config", station.config, "--json"])
        #expect(listing.status == 0, "\(listing.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(listing.stdout.utf8)) as? [String: Any])
        let reports = try #require(json["reports"] as? [[String: Any]])
        #expect(reports.count == 1 && reports.first?["state"] as? String == "pending")
        let id = try #require(reports.first?["id"] as? String)
        // The listing has no personal data.
        #expect(
            !listing.stdout.contains("600123456") && !listing.stdout.contains("finder@")
                && !listing.stdout.contains("7654321"))

        // Backend down: a bounded pass, then exit 1 with the report still pending.
        station.receiver.stop()
        let started = Date()
        let down = try station.report(["send", "--config", station.config, "--once", "--within", "2"])
        #expect(down.status == 1, "\(down.stderr)")
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(try await station.entries()[id]?.state == .pending)
        let human = try station.report(["outbox", "--config", station.config])
        #expect(human.stdout.contains("1 pending") && human.stdout.contains(id), "\(human.stdout)")

        // Backend back: exit 0.
        try station.receiver.start()
        let up = try station.report(["send", "--config", station.config, "--once"])
        #expect(up.status == 0, "\(up.stderr)")
        let stored = try #require(station.receiver.stored(id))
        let announcement = try #require(try JSONSerialization.jsonObject(with: stored.announcement) as? [String: Any])
        #expect(announcement["latitude"] as? Double == 52.2297 && announcement["petName"] as? String == "Rex")
        #expect(!String(decoding: stored.body, as: UTF8.self).contains("Kwiatowa"))
        #expect(stored.photo == Data(ReportFixtures.photo(extra: 100)))
    }

    @Test func operatorRetryAndDiscard() async throws {
        let station = try Station()
        defer { station.remove() }
        let ids = try await station.enqueue(2)
        try station.receiver.plan(#"{"sequence": [{"status": 422}, {"status": 400}]}"#)
        let run = try station.report(["send", "--config", station.config, "--once"])
        // Rejected reports are not pending: exit 0, and they are counted.
        #expect(run.status == 0 && run.stderr.contains("0 delivered, 0 pending, 2 rejected"), "\(run.stderr)")
        let listing = try station.report(["outbox", "--config", station.config])
        #expect(listing.stdout.contains("2 rejected") && listing.stdout.contains("HTTP 422"), "\(listing.stdout)")

        let retry = try station.report(["outbox", "retry", String(ids[0].prefix(8)), "--config", station.config])
        #expect(retry.status == 0 && retry.stdout.contains("\(ids[0]): pending"), "\(retry.stderr)")
        let discard = try station.report(["outbox", "discard", ids[1], "--config", station.config])
        #expect(discard.status == 0 && discard.stdout.contains("discarded (it was rejected)"), "\(discard.stderr)")
        let missing = try station.report(["outbox", "discard", ids[1], "--config", station.config])
        #expect(missing.status == 1 && missing.stderr.contains("no report"), "\(missing.stderr)")

        let again = try station.report(["send", "--config", station.config, "--once"])
        #expect(again.status == 0, "\(again.stderr)")
        let entries = try await station.entries()
        #expect(entries.count == 1 && entries[ids[0]]?.state == .delivered)
        #expect(station.receiver.storedKeys() == [ids[0]])

        // Another user, even one who can write the files, may look but not change.
        chmod(station.work.path, 0o755)
        chmod(station.outboxDirectory, 0o777)
        chmod(station.outboxDirectory + "/photos", 0o777)
        for name in try FileManager.default.contentsOfDirectory(atPath: station.outboxDirectory)
        where name.hasPrefix("outbox.sqlite") {
            chmod(station.outboxDirectory + "/" + name, 0o666)
        }
        let runuser = "/usr/sbin/runuser"
        if getuid() == 0, FileManager.default.isExecutableFile(atPath: runuser) {
            let binary = RepositoryPaths.executable("petspot-report")
            let look = try ChildProcess.run(
                runuser, ["-u", "nobody", "--", binary, "outbox", "--config", station.config])
            #expect(look.status == 0, "\(look.stderr)")
            let change = try ChildProcess.run(
                runuser, ["-u", "nobody", "--", binary, "outbox", "retry", ids[0], "--config", station.config])
            #expect(change.status == 1 && change.stderr.contains("only root or the owner of"), "\(change.stderr)")
        }
    }

    /// Issue 29 item 5: a body sent a byte every 0.3 s kept `send --once
    /// --within 8` running until the backend finished (90 s here); the
    /// upload's timeout (5 s) now covers the body too.
    @Test func aTricklingAnswerDoesNotHoldSendOnce() async throws {
        let station = try Station(timeout: 5)
        defer { station.remove() }
        let ids = try await station.enqueue(1)
        try station.receiver.plan(#"{"sequence": [{"do": "trickle", "bytes": 300, "interval": 0.3}]}"#)
        // The 60 s limit is the hang guard: a killed run has no exit status.
        let run = try station.report(["send", "--config", station.config, "--once", "--within", "8"], timeout: 60)
        #expect(run.status == 0 && run.stderr.contains("1 delivered, 0 pending"), "\(run.status as Any) \(run.stderr)")
        let entry = try #require(try await station.entries()[ids[0]])
        #expect(entry.state == .delivered, "\(entry)")
        #expect(entry.lastError?.contains("the answer's body was not complete within the timeout (5 s)") == true)
    }

    /// Issue 29 item 5: a redirect's `Location` is the backend's text, kept
    /// as the report's last error; `petspot-report outbox` and `send`'s log
    /// printed its C1 controls (U+009B is CSI on some terminals) and bidi
    /// overrides raw.
    @Test func theBackendsWordsReachTheOperatorEscaped() async throws {
        let station = try Station(retryInitial: 120, retryMax: 120)
        defer { station.remove() }
        let ids = try await station.enqueue(1)
        // JSON escapes: U+009B (CSI) "2J" (clear the screen), U+0085 (NEL), U+202E (right-to-left override).
        let location = "http://elsewhere.example/\u{9B}2J\u{85}\u{202E}gnp.exe"
        try station.receiver.plan(
            #"{"sequence": [{"do": "redirect", "status": 302, "location": "http://elsewhere.example/\u009b2J\u0085\u202egnp.exe"}]}"#
        )
        // One attempt: the retry is due past the pass's end, so the pass ends after it.
        let run = try station.report(["send", "--config", station.config, "--once", "--within", "30"])
        #expect(run.status == 1, "\(run.stderr)")
        // What the outbox keeps is what the backend said.
        #expect(try await station.entries()[ids[0]]?.lastError?.contains(location) == true)
        func raw(_ text: String) -> [String] {
            text.unicodeScalars.filter {
                (0x80..<0xA0).contains($0.value) || (0x202A...0x202E).contains($0.value) || $0.value == 0x1B
            }.map { "U+" + String($0.value, radix: 16) }
        }
        #expect(raw(run.stderr).isEmpty, "send's log: \(raw(run.stderr))")
        #expect(run.stderr.contains(#"redirected to http://elsewhere.example/\u{009b}2J\u{0085}\u{202e}gnp.exe"#))

        let listing = try station.report(["outbox", "--config", station.config])
        #expect(listing.status == 0, "\(listing.stderr)")
        #expect(raw(listing.stdout).isEmpty, "outbox: \(raw(listing.stdout))")
        #expect(
            listing.stdout.contains(#"redirected to http://elsewhere.example/\u{009b}2J\u{0085}\u{202e}gnp.exe"#),
            "\(listing.stdout)")

        // --json: no raw control either, and the same JSON: it decodes to the backend's text.
        let json = try station.report(["outbox", "--config", station.config, "--json"])
        #expect(json.status == 0 && raw(json.stdout).isEmpty, "outbox --json: \(raw(json.stdout))")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let reports = try #require(object["reports"] as? [[String: Any]])
        #expect((reports.first?["lastError"] as? String)?.contains(location) == true, "\(json.stdout)")
    }

    @Test func sendRefusesWithoutDeliveryOrToken() throws {
        let station = try Station()
        defer { station.remove() }
        try FileManager.default.removeItem(atPath: station.work.file("token"))
        let noToken = try station.report(["send", "--config", station.config, "--once"])
        #expect(noToken.status == 1 && noToken.stderr.contains("cannot read the token file"), "\(noToken.stderr)")
        let bare = try station.work.write("bare.toml", "[outbox]\npath = \"outbox\"\n")
        let noDelivery = try station.report(["send", "--config", bare, "--once"])
        #expect(noDelivery.status == 1 && noDelivery.stderr.contains("has no [delivery] table"), "\(noDelivery.stderr)")
        let badKey = try station.work.write("bad.toml", "[outbox]\npath = \"outbox\"\npaht = 1\n")
        let bad = try station.report(["outbox", "--config", badKey])
        #expect(bad.status == 1 && bad.stderr.contains("line 3: outbox.paht: unknown key"), "\(bad.stderr)")
    }
}
