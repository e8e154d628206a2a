import DeliveryTestSupport
import Foundation
import Logging
import Metrics
import MetricsTestKit
import PetSpotDelivery
import PetSpotOutbox
import PetSpotReport
import Testing
import TestSupport

/// An outbox, a photo, a token file and the stand-in backend on loopback.
final class DeliveryHarness: @unchecked Sendable {
    static let token = "test-token.123"
    let scratch: TemporaryDirectory
    let receiver: HTTPReceiver
    let outbox: Outbox
    let photoBytes: [UInt8]
    let photoPath: String
    var tokenFile: String { scratch.file("token") }

    init(photoSize: Int = 4096) throws {
        scratch = try TemporaryDirectory(prefix: "delivery")
        receiver = try HTTPReceiver(token: Self.token)
        outbox = try Outbox.open(directory: scratch.file("outbox"))
        photoBytes = ReportFixtures.photo(extra: photoSize)
        photoPath = try ReportFixtures.write(photoBytes, to: scratch.path)
        try (Self.token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
    }

    /// Queues `count` reports created a second apart (oldest first); returns them.
    @discardableResult
    func enqueue(
        _ count: Int, start: Date = Date(timeIntervalSince1970: 1_800_000_000)
    ) async throws -> [FoundPetReport] {
        var reports: [FoundPetReport] = []
        for index in 0..<count {
            let report = ReportFixtures.report(
                createdAt: start.addingTimeInterval(Double(index)), photoBytes: photoBytes.count)
            try await outbox.enqueue(report: report, photoFile: photoPath)
            reports.append(report)
        }
        return reports
    }

    func configuration(
        timeout: Duration = .seconds(10), retryInitial: Duration = .milliseconds(50),
        retryMax: Duration = .milliseconds(200), maxInFlight: Int = 1
    ) -> DeliverySettings {
        var settings = DeliverySettings(endpoint: receiver.endpoint, tokenFile: tokenFile)
        settings.timeout = timeout
        settings.retryInitial = retryInitial
        settings.retryMax = retryMax
        settings.maxInFlight = maxInFlight
        settings.pollInterval = .milliseconds(50)
        return settings
    }

    func sender(
        _ settings: DeliverySettings, clock: any DeliveryClock = SystemDeliveryClock(),
        metrics: any MetricsFactory = NOOPMetricsHandler.instance
    ) -> DeliverySender {
        var logger = Logger(label: "test.delivery")
        logger.logLevel = .critical
        return DeliverySender(
            outbox: outbox, settings: settings, logger: logger, clock: clock, metrics: metrics)
    }

    func entries() async throws -> [String: OutboxEntry] {
        Dictionary(uniqueKeysWithValues: try await outbox.entries().map { ($0.id, $0) })
    }

    func remove() {
        receiver.remove()
        scratch.remove()
    }
}

extension FoundPetReport {
    var key: String { id.uuidString.lowercased() }
}

/// The sender against a real HTTP receiver on loopback (SPEC §8).
@Suite("Delivery to a real HTTP receiver", .serialized)
struct ReceiverDeliveryTests {
    @Test func deliversTheExactPayloadAndPhotoWithoutStationOnlyData() async throws {
        let harness = try DeliveryHarness(photoSize: 300_000)
        defer { harness.remove() }
        let reports = try await harness.enqueue(2)
        let result = try await harness.sender(harness.configuration()).drain(within: 30)
        #expect(result.undelivered == 0 && result.summary.delivered == 2)

        let requests = harness.receiver.requests()
        #expect(requests.count == 2)
        // Oldest first.
        #expect(requests.map(\.key) == reports.map(\.key))
        for (report, request) in zip(reports, requests) {
            #expect(request.headers["idempotency-key"] == report.key)
            #expect(request.headers["authorization"] == "Bearer \(DeliveryHarness.token)")
            #expect(request.headers["content-type"]?.hasPrefix("multipart/form-data; boundary=") == true)
            let stored = try #require(harness.receiver.stored(report.key))
            #expect(stored.announcement == (try FoundPetAnnouncement(report).jsonData()))
            #expect(stored.photo == Data(harness.photoBytes))
            let parts = try #require(stored.parts["parts"] as? [[String: Any]])
            #expect(parts.map { $0["name"] as? String } == ["announcement", "photo"])
            let photoHeaders = try #require(parts[1]["headers"] as? [String: String])
            #expect(photoHeaders["content-type"] == "image/png")
            #expect(parts[1]["filename"] as? String == "\(report.key).png")
            #expect((parts[0]["headers"] as? [String: String])?["content-type"] == "application/json")
            // FR-016: the caregiver phone and address are nowhere in what was received.
            let body = String(decoding: stored.body, as: UTF8.self)
            #expect(!body.contains(ReportFixtures.caregiverPhone) && !body.contains("Kwiatowa"))
            #expect(!body.contains("caregiverPhone") && !body.contains("address"))
        }
        let entries = try await harness.entries()
        #expect(entries[reports[0].key]?.backendReference == "srv-1")
        #expect(entries[reports[1].key]?.backendReference == "srv-2")
        // Delivered: the station keeps no caregiver phone or address either.
        #expect(try await harness.outbox.stored(reports[0].key)?.stationOnly == nil)
    }

    /// FR-016 on disk (issue 29 item 6): the UPDATE that drops the caregiver's
    /// phone and address leaves the queued versions of the row in the WAL,
    /// which SQLite never shrinks; read here as raw bytes while the outbox is open.
    @Test func afterDeliveryTheCaregiverDataIsInNoneOfTheDatabaseFiles() async throws {
        let harness = try DeliveryHarness()
        defer { harness.remove() }
        try await harness.enqueue(1)
        let directory = harness.outbox.directory
        let caregiver = [ReportFixtures.caregiverPhone, ReportFixtures.address]
        // The scan sees what is queued (in the WAL, or the database file).
        #expect(OutboxFileScan.present(caregiver, inOutbox: directory) == Set(caregiver))
        let result = try await harness.sender(harness.configuration()).drain(within: 30)
        #expect(result.summary.delivered == 1)
        // The outbox is still open, as in the running kiosk.
        let left = OutboxFileScan.find(caregiver, inOutbox: directory)
        #expect(left.isEmpty, "after delivery: \(left) (\(OutboxFileScan.sizes(inOutbox: directory)))")
        // What stays until the retention purge is still there: the scan reads real content.
        #expect(!OutboxFileScan.find(["finder@example.com"], inOutbox: directory).isEmpty)
    }

    @Test func serverErrorThenCreatedIsDeliveredOnce() async throws {
        let harness = try DeliveryHarness()
        defer { harness.remove() }
        try harness.receiver.plan(#"{"sequence": [{"status": 500}, {"status": 503}]}"#)
        let report = try await harness.enqueue(1)[0]
        let metrics = TestMetrics()
        let result = try await harness.sender(harness.configuration(), metrics: metrics).drain(within: 30)
        // Attempts by outcome, for the station's metrics file.
        func attempts(_ outcome: String) throws -> Int64 {
            try metrics.expectCounter("petspot_delivery_attempts_total", [("outcome", outcome)]).totalValue
        }
        #expect(try attempts("retry") == 2 && attempts("delivered") == 1 && attempts("rejected") == 0)
        #expect(result.undelivered == 0)
        let requests = harness.receiver.requests()
        #expect(requests.map(\.outcome) == ["status 500", "status 503", "stored"])
        #expect(Set(requests.map(\.key)) == [report.key])
        #expect(harness.receiver.storedKeys() == [report.key])
        #expect(try await harness.entries()[report.key]?.attempts == 3)
    }

    @Test func tooManyRequestsHonoursRetryAfter() async throws {
        let harness = try DeliveryHarness()
        defer { harness.remove() }
        try harness.receiver.plan(#"{"sequence": [{"status": 429, "retryAfter": 2}]}"#)
        let report = try await harness.enqueue(1)[0]
        // The backoff alone would retry after at most 0.2 s.
        let result = try await harness.sender(harness.configuration()).drain(within: 30)
        #expect(result.undelivered == 0)
        let requests = harness.receiver.requests()
        try #require(requests.count == 2)
        #expect(requests[1].time - requests[0].time >= 1.95, "retried after \(requests[1].time - requests[0].time) s")
        #expect(harness.receiver.storedKeys() == [report.key])
    }

    @Test func aRejectedReportIsKeptAndTheNextIsDelivered() async throws {
        let harness = try DeliveryHarness()
        defer { harness.remove() }
        try harness.receiver.plan(#"{"sequence": [{"status": 400}]}"#)
        let reports = try await harness.enqueue(2)
        let metrics = TestMetrics()
        let result = try await harness.sender(harness.configuration(), metrics: metrics).drain(within: 30)
        #expect(result.undelivered == 0 && result.summary.rejected == 1 && result.summary.delivered == 1)
        #expect(
            try metrics.expectCounter("petspot_delivery_attempts_total", [("outcome", "rejected")]).totalValue == 1)
        let entries = try await harness.entries()
        let rejected = try #require(entries[reports[0].key])
        #expect(rejected.state == .rejected && rejected.lastStatus == 400)
        #expect(rejected.lastError == "HTTP 400 Bad Request: told to fail with 400")
        #expect(entries[reports[1].key]?.state == .delivered)
        // Never retried automatically: a second pass sends nothing.
        _ = try await harness.sender(harness.configuration()).drain(within: 2)
        #expect(harness.receiver.requests().filter { $0.key == reports[0].key }.count == 1)
        // The operator's retry sends it again.
        try await harness.outbox.retry(reports[0].key)
        #expect(try await harness.sender(harness.configuration()).drain(within: 30).undelivered == 0)
        #expect(harness.receiver.storedKeys() == Set(reports.map(\.key)))
    }

    @Test func resetMidUploadAndSlowAnswerAreRetriedAndDeliveredOnce() async throws {
        let harness = try DeliveryHarness(photoSize: 1 << 20)
        defer { harness.remove() }
        // The slow answer comes after the backend stored the report: its retry is a duplicate (409).
        // The limit leaves room for a loaded machine's ordinary answers; the slow one is far past it.
        try harness.receiver.plan(#"{"sequence": [{"do": "reset"}, {"do": "slow", "seconds": 60}]}"#)
        let reports = try await harness.enqueue(2)
        let result = try await harness.sender(harness.configuration(timeout: .seconds(6))).drain(within: 60)
        #expect(result.undelivered == 0)
        let requests = harness.receiver.requests()
        #expect(requests.count == 4)
        #expect(requests.map(\.outcome).sorted() == ["duplicate", "reset", "stored", "stored"])
        #expect(Set(requests.map(\.key)) == Set(reports.map(\.key)))
        for report in reports {
            #expect(requests.filter { $0.key == report.key && $0.outcome == "stored" }.count == 1)
        }
        #expect(harness.receiver.storedKeys() == Set(reports.map(\.key)))
        // The report answered slowly was delivered by its duplicate's 409, with the first answer's id.
        let slow = try #require(requests.first { $0.outcome == "duplicate" })
        let entry = try #require(try await harness.entries()[slow.key])
        #expect(entry.state == .delivered && entry.lastStatus == 409 && entry.attempts == 2)
        #expect(entry.backendReference == requests.first { $0.key == slow.key && $0.outcome == "stored" }?.backendId)
    }

    @Test func aBackendOutageOfFiveMinutesThenEverythingIsDelivered() async throws {
        let harness = try DeliveryHarness()
        defer { harness.remove() }
        harness.receiver.stop()
        let reports = try await harness.enqueue(5)
        // Real settings (2 s doubling to 5 min), on a clock 60 times faster: 5 minutes pass in 5 s.
        let clock = ScaledClock(factor: 60)
        let sender = harness.sender(
            harness.configuration(timeout: .seconds(1), retryInitial: .seconds(2), retryMax: .seconds(300)),
            clock: clock)
        let start = clock.now
        let running = Task { try await sender.run() }
        defer { running.cancel() }
        while clock.now.timeIntervalSince(start) < 300 { try await Task.sleep(for: .milliseconds(100)) }
        let during = try await harness.entries()
        let states = during.values.map { "\($0.state) \($0.attempts) \($0.lastError ?? "-")" }
        #expect(during.values.allSatisfy { $0.state != .delivered && $0.attempts >= 1 }, "\(states)")
        #expect(during.values.map(\.attempts).reduce(0, +) >= 8, "\(states)")
        #expect(
            during.values.compactMap(\.lastError).allSatisfy { $0.contains("onnect") || $0.contains("refused") },
            "\(states)")
        try harness.receiver.start()
        // Everything is delivered within one backoff cap (5 simulated minutes) after the outage.
        let delivered = await eventually(within: .seconds(60), every: .milliseconds(100)) {
            ((try? await harness.outbox.summary().delivered) ?? 0) == 5
        }
        #expect(delivered)
        running.cancel()
        _ = try? await running.value
        #expect(harness.receiver.storedKeys() == Set(reports.map(\.key)))
        #expect(harness.receiver.requests().count == 5)
    }

    @Test func badAnswersAreBoundedAndExplained() async throws {
        let harness = try DeliveryHarness()
        defer { harness.remove() }
        let elsewhere = "http://127.0.0.2:\(harness.receiver.port)/announcements"
        try harness.receiver.plan(
            """
            {"sequence": [{"do": "garbage"}, {"do": "redirect", "location": "\(elsewhere)"}, {"do": "huge"}]}
            """)
        let report = try await harness.enqueue(1)[0]
        let sender = harness.sender(
            harness.configuration(timeout: .seconds(10), retryInitial: .milliseconds(50), retryMax: .milliseconds(50)))
        let started = Date()
        let result = try await sender.drain(within: 30)
        #expect(result.undelivered == 0)
        // A 2 GB answer is not read: the pass ends in seconds.
        #expect(Date().timeIntervalSince(started) < 15)
        let requests = harness.receiver.requests()
        #expect(requests.map(\.outcome) == ["garbage", "redirect", "stored"])
        // The redirect to another host was not followed.
        #expect(requests.allSatisfy { $0.headers["host"] == "127.0.0.1:\(harness.receiver.port)" })
        let entry = try #require(try await harness.entries()[report.key])
        #expect(entry.state == .delivered && entry.backendReference == nil)
        #expect(entry.lastError == "HTTP 201 Created; the answer's body was larger than 65536 bytes and was not read")
    }

    /// Issue 29 item 5: async-http-client's deadline ends with the answer's
    /// head and its read timeout restarts with every byte, so a body sent a
    /// byte at a time held the upload until the backend finished (here 75 s).
    @Test func aBodyTricklingInEndsTheAttemptAtTheTimeout() async throws {
        let harness = try DeliveryHarness()
        defer { harness.remove() }
        // 250 bytes, one every 0.3 s: 75 s of body, every byte well inside the 6 s read timeout.
        try harness.receiver.plan(#"{"sequence": [{"do": "trickle", "bytes": 250, "interval": 0.3}]}"#)
        let report = try await harness.enqueue(1)[0]
        let started = ContinuousClock.now
        let result = try await harness.sender(harness.configuration(timeout: .seconds(6))).drain(within: 30)
        let took = ContinuousClock.now - started
        // A hang guard for a loaded machine, far below the 75 s the backend asked for.
        #expect(took < .seconds(60), "the pass took \(took)")
        // The status came in time: delivered, without the reference the body would have given.
        #expect(result.undelivered == 0)
        let entry = try #require(try await harness.entries()[report.key])
        #expect(entry.state == .delivered && entry.backendReference == nil && entry.attempts == 1)
        #expect(
            entry.lastError
                == "HTTP 201 Created; the answer's body was not complete within the timeout (6 s) and was not read further"
        )
        // The sender closed the connection mid-body (the receiver logs it when its next byte fails).
        let ended = await eventually(within: .seconds(60)) { !harness.receiver.trickles().isEmpty }
        let trickle = try #require(harness.receiver.trickles().first, "the receiver never saw the answer end")
        #expect(ended && trickle.clientLeft && trickle.sent < trickle.bytes, "\(trickle)")
    }

    @Test func aWrongTokenIsRejectedAndAMissingTokenFileRetried() async throws {
        let harness = try DeliveryHarness()
        defer { harness.remove() }
        let reports = try await harness.enqueue(2)
        try FileManager.default.removeItem(atPath: harness.tokenFile)
        // One attempt each: the retry is due past the pass's end, so the pass ends after it (not at a clock).
        _ = try await harness.sender(harness.configuration(retryInitial: .seconds(120), retryMax: .seconds(120))).drain(
            within: 60)
        var entries = try await harness.entries()
        #expect(entries[reports[0].key]?.state == .pending)
        #expect(entries[reports[0].key]?.lastError?.contains("cannot read the token file") == true)
        #expect(harness.receiver.requests().isEmpty)
        try "wrong-token".write(toFile: harness.tokenFile, atomically: true, encoding: .utf8)
        // Still waiting (pending), so the operator's retry makes them due now rather than in two minutes.
        for report in reports { try await harness.outbox.retry(report.key) }
        _ = try await harness.sender(harness.configuration()).drain(within: 60)
        entries = try await harness.entries()
        #expect(entries[reports[0].key]?.state == .rejected && entries[reports[0].key]?.lastStatus == 401)
    }

    @Test func severalInFlightDeliverEachOnce() async throws {
        let harness = try DeliveryHarness()
        defer { harness.remove() }
        try harness.receiver.plan(#"{"sequence": [{"status": 500}, {"do": "reset"}, {"status": 502}]}"#)
        let reports = try await harness.enqueue(12)
        let result = try await harness.sender(harness.configuration(maxInFlight: 4)).drain(within: 30)
        #expect(result.undelivered == 0)
        #expect(harness.receiver.storedKeys() == Set(reports.map(\.key)))
        #expect(harness.receiver.requests().filter { $0.outcome == "stored" }.count == 12)
        #expect(harness.receiver.requests().filter { $0.outcome == "duplicate" }.isEmpty)
    }

    @Test func onlyOneSenderPerOutbox() async throws {
        let harness = try DeliveryHarness()
        defer { harness.remove() }
        let lock = try #require(try OutboxSenderLock.acquire(outboxDirectory: harness.outbox.directory))
        await #expect(throws: DeliveryError.self) { try await harness.sender(harness.configuration()).drain(within: 1) }
        withExtendedLifetime(lock) {}
    }

    @Test func theServiceWakesForAnEnqueueAndStopsOnCancel() async throws {
        let harness = try DeliveryHarness()
        defer { harness.remove() }
        var configuration = harness.configuration()
        configuration.pollInterval = .seconds(30)
        let sender = harness.sender(configuration)
        let running = Task { try await sender.run() }
        try await Task.sleep(for: .milliseconds(300))
        let report = try await harness.enqueue(1)[0]
        // Well inside the 30 s poll: only the wake-up delivers it in time.
        let delivered = await eventually(within: .seconds(20)) { harness.receiver.storedKeys() == [report.key] }
        #expect(delivered, "an enqueue in this process did not wake the sender")
        running.cancel()
        _ = try? await running.value
    }
}
