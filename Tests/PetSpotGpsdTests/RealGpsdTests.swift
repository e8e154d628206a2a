import Foundation
import Glibc
import PetSpotFixHub
import PetSpotLocation
import PetSpotSettings
import TestSupport
import Testing

@testable import PetSpotGpsd

/// gpsfake replays run at most this many at once (2-core CI).
let replayGate = Gate(limit: 3)

/// The source against real gpsd 3.22 fed by gpsfake with the receiver captures.
@Suite("gpsd source against real gpsd", .timeLimit(.minutes(10)))
struct RealGpsdTests {
    struct Capture: Sendable, CustomTestStringConvertible {
        var file: String
        var hasFix: Bool
        var note: String
        var testDescription: String { "\(file) (\(note))" }
    }

    static let captures: [Capture] = [
        Capture(file: "bu353s4.log", hasFix: true, note: "S/E, +1024 wk"),
        Capture(file: "garmin48.log", hasFix: true, note: "S/E"),
        Capture(file: "hp58534a.log", hasFix: true, note: "S/E, malformed: no checksums"),
        Capture(file: "magellan315.log", hasFix: true, note: "N/W"),
        Capture(file: "cat-ms352.log", hasFix: true, note: "N/W"),
        Capture(file: "triton400.log", hasFix: true, note: "N/W, malformed GGA"),
        Capture(file: "isync.log", hasFix: true, note: "N/W, packet collisions"),
        Capture(file: "meinberg-gps164.log", hasFix: true, note: "2D only"),
        Capture(file: "humminbird-M37.log", hasFix: true, note: "time goes backward"),
        Capture(file: "unicore-um621.log", hasFix: true, note: "loses and regains the fix"),
        Capture(file: "ublox-neo-m8n.log", hasFix: true, note: "UBX binary, S/E"),
        Capture(file: "bu303-moving.log", hasFix: true, note: "SiRF binary"),
        Capture(file: "ublox-neo-m8u.log", hasFix: true, note: "UBX binary, W"),
        Capture(file: "eXplorist110.log", hasFix: false, note: "mode 1 only"),
        Capture(file: "tn200.log", hasFix: false, note: "mode 1 only"),
        Capture(file: "skytraq-err.log", hasFix: false, note: "malformed, no TPV at all"),
        Capture(file: "bu303b-nofix.log", hasFix: false, note: "SiRF binary, no fix"),
    ]

    /// gpsd's own TPV fixes from gpsfake's watcher output (`-p`).
    static func gpsdFixes(in path: String) -> [(latitude: Double, longitude: Double)] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(whereSeparator: \.isNewline).compactMap { line in
            guard line.hasPrefix(#"{"class":"TPV""#),
                let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let mode = object["mode"] as? Int, mode >= 2,
                let latitude = object["lat"] as? Double, let longitude = object["lon"] as? Double
            else { return nil }
            return (latitude, longitude)
        }
    }

    @Test(arguments: captures)
    func replay(_ capture: Capture) async throws {
        try #require(
            FileManager.default.fileExists(atPath: Captures.path(capture.file)), "captures at \(Captures.directory)")
        try await replayGate.run {
            for attempt in 1...3 {
                if try await Self.replayOnce(capture) { return }
                print("gpsfake timed out on \(capture.file) (attempt \(attempt)); retrying")
            }
            Issue.record("gpsfake never attached gpsd for \(capture.file)")
        }
    }

    /// One replay; false when gpsfake itself failed ("Test timed out").
    ///
    /// Nothing here waits for a clock: gpsfake (``GatedGpsfake``) feeds gpsd
    /// only once gpsd has taken the source's WATCH, keeps gpsd up until the
    /// test is done asking, and the counts are read once the source has seen
    /// gpsd's end (every line gpsd wrote comes before it). A slow machine
    /// makes the replay slower, never different.
    static func replayOnce(_ capture: Capture) async throws -> Bool {
        let directory = try TemporaryDirectory(prefix: "petspot-gpsfake")
        defer { directory.remove() }
        let output = directory.file("gpsd.out")
        let port = freeLoopbackPort()
        let gpsfake = try BoundedProgram(
            ["/usr/bin/python3", "-c", GatedGpsfake.script, "\(port)", "38400", Captures.path(capture.file)],
            limit: .seconds(120), outputPath: output, input: true)
        // gpsd is never silent for long here, but the watchdog is not what
        // this test is about (FakeGpsdTests is): a slow machine must not trip it.
        let source = GpsdLocationService(
            settings: GpsdSettings(port: port, reconnectMax: .milliseconds(200), silenceTimeout: .seconds(600)),
            initialReconnectDelay: .milliseconds(20))
        let runner = Task { await source.run() }
        defer { runner.cancel() }

        // The source's WATCH is on its way once it is connected; then the feed may start.
        let connected = await eventually(within: .seconds(60), every: .milliseconds(10)) {
            await source.sourceStatus().connected || gpsfake.exitStatus != nil
        }
        if gpsfake.exitStatus == nil {
            #expect(connected, "the source never connected to gpsfake's gpsd for \(capture.file)")
            gpsfake.send("go\n")
            if !capture.hasFix, connected {
                // gpsd is up (it waits for "end") and reports mode 1 at most: no fix, not an outage.
                await #expect(throws: LocationError.locationUnknown, "\(capture.file)") {
                    try await source.location(LocationRequest(timeout: .seconds(1)))
                }
            }
            gpsfake.send("end\n")
        }
        let status = await gpsfake.waitForExit(within: .seconds(120))
        if status == nil { await gpsfake.terminate() }
        guard status == 0 else {
            runner.cancel()
            await runner.value
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            print("gpsfake exit \(String(describing: status)): \(text.suffix(600))")
            return false
        }
        // gpsd is gone: the source has taken every line gpsd wrote once it has seen the end of them.
        let ended = await eventually(within: .seconds(60), every: .milliseconds(10)) {
            await !source.sourceStatus().connected
        }
        runner.cancel()
        await runner.value
        #expect(ended, "the source never saw gpsd's end for \(capture.file)")

        let expected = gpsdFixes(in: output)
        let answer: Result<LocationFix, LocationError>
        do {
            answer = .success(
                try await source.location(LocationRequest(maxAge: .seconds(600), timeout: .milliseconds(100))))
        } catch {
            answer = .failure(error)
        }
        let counters = await source.sourceStatus()
        // Nothing real gpsd sent was refused: the line checks are no stricter than gpsd
        // (its SKY lines reach 5334 bytes here, for one).
        #expect(counters.rejected == 0, "\(capture.file)")
        // Every fix gpsd reported to its other watcher reached the source too.
        #expect(counters.fixes == expected.count, "\(capture.file)")
        if capture.hasFix {
            let last = try #require(expected.last, "gpsd reported no fix for \(capture.file)")
            // The newest fix stays cached after gpsd is gone (within maxAge).
            let fix = try answer.get()
            #expect(abs(fix.coordinate.latitude - last.latitude) <= 1e-6)
            #expect(abs(fix.coordinate.longitude - last.longitude) <= 1e-6)
            #expect(fix.source == .gpsd)
        } else {
            #expect(expected.isEmpty)
            #expect(throws: LocationError.sourceUnavailable) { try answer.get() }
        }
        return true
    }

    // MARK: gpsd killed and restarted

    /// gpsd reading a synthetic receiver, SIGKILLed and restarted 20 times in
    /// one process: a waiting request is ended by the outage (sourceUnavailable,
    /// long before its timeout), fixes flow again after each restart, and no fd
    /// or thread leaks. The bounds are 10 times what an idle machine needs
    /// (backoff cap + 2 s to reconnect): a loaded machine must not fail them,
    /// a source that stops reconnecting or leaves waiters hanging still does.
    /// It counts the whole process's descriptors and frees and rebinds one
    /// port 20 times (another test could grab it meanwhile), so scripts/test
    /// runs it alone in its own test process.
    @Test func killAndRestartTwentyTimes() async throws {
        let hasFix = Locked(true)
        let receiver = try SyntheticReceiver.serve(hasFix: hasFix)
        defer { receiver.stop() }
        let port = freeLoopbackPort()
        let reconnectMax = Duration.seconds(1)
        let source = GpsdLocationService(
            settings: GpsdSettings(port: port, reconnectMax: reconnectMax, silenceTimeout: .seconds(5)))
        let device = "tcp://127.0.0.1:\(receiver.port)"
        var gpsd = try GpsdDaemon(port: port, devices: [device])
        let runner = Task { await source.run() }

        // What an idle machine needs to reconnect and get a fix, times 10.
        let restartBound = (reconnectMax + .seconds(2)) * 10
        let requestTimeout = Duration.seconds(30)

        func cycle() async throws {
            await gpsd.kill()
            let start = ContinuousClock.now
            var outcome: LocationError?
            while outcome == nil, ContinuousClock.now - start < requestTimeout {
                do {
                    _ = try await source.location(LocationRequest(maxAge: .zero, timeout: requestTimeout))
                    // A line gpsd sent before it died; ask again.
                } catch {
                    outcome = error
                }
            }
            // The outage ended the request, not its timeout (which would be locationUnknown).
            #expect(outcome == .sourceUnavailable)
            gpsd = try GpsdDaemon(port: port, devices: [device])
            var fix = await firstFix(from: source, within: restartBound)
            if fix == nil, gpsd.hasExited {
                // gpsd itself failed to start (port still held); that is not the source's fault.
                gpsd = try GpsdDaemon(port: port, devices: [device])
                fix = await firstFix(from: source, within: restartBound)
            }
            #expect(fix != nil, "no fix within \(restartBound) after restart")
        }

        do {
            let first = await firstFix(from: source, within: .seconds(60))
            let fix = try #require(first)
            #expect(abs(fix.coordinate.latitude - SyntheticReceiver.latitude) < 1e-6)
            #expect(abs(fix.coordinate.longitude - SyntheticReceiver.longitude) < 1e-6)
            try await cycle()  // warm-up: lazily created threads and fds settle
            let before = ResourceCount.now()
            for _ in 0..<20 { try await cycle() }
            var after = ResourceCount.now()
            _ = await eventually(within: .seconds(5), every: .milliseconds(20)) {
                after = ResourceCount.now()
                return after.fileDescriptors <= before.fileDescriptors && after.threads <= before.threads
            }
            // One leaked descriptor or thread per cycle would show 20. A busy machine
            // leaves a few in flight when the counts are read (the source's next
            // connect, a child's pipes not yet reaped): 6 was seen under stress-ng.
            #expect(after.fileDescriptors - before.fileDescriptors < 10, "before \(before), after \(after)")
            #expect(after.threads - before.threads < 10, "before \(before), after \(after)")
            let status = await source.sourceStatus()
            #expect(status.reconnects >= 21)
            #expect(status.connected)
        }
        runner.cancel()
        await runner.value
        await gpsd.kill()
    }

    /// A receiver that loses its fix: gpsd sends mode 1 reports after the
    /// fixes, and once the newest fix is over 1 s old a request with maxAge
    /// 1 s no longer gets it (it times out: no fix, not an outage).
    @Test func receiverLosesItsFix() async throws {
        let hasFix = Locked(true)
        let receiver = try SyntheticReceiver.serve(hasFix: hasFix)
        defer { receiver.stop() }
        let port = freeLoopbackPort()
        let gpsd = try GpsdDaemon(port: port, devices: ["tcp://127.0.0.1:\(receiver.port)"])
        let source = GpsdLocationService(settings: GpsdSettings(port: port, reconnectMax: .seconds(1)))
        let runner = Task { await source.run() }
        let first = await firstFix(from: source, within: .seconds(60))
        #expect(first?.source == .gpsd)
        hasFix.value = false
        // gpsd keeps reporting (mode 1). A fix sent before the switch may still be
        // on its way, so no fixed wait: ask until the answer is "no fix" (a source
        // that served the stale fix, or called it an outage, never gets there).
        var refusal: LocationError?
        let refused = await eventually(within: .seconds(60), every: .milliseconds(50)) {
            do throws(LocationError) {
                _ = try await source.location(LocationRequest(maxAge: .seconds(1), timeout: .seconds(1)))
                return false
            } catch {
                refusal = error
                return error == .locationUnknown
            }
        }
        #expect(refused, "still answered, or failed with \(String(describing: refusal))")
        let status = await source.sourceStatus()
        #expect(status.connected)
        // Refused because the newest fix was too old, not for want of one.
        #expect((status.lastFixAge ?? 0) > 1)
        runner.cancel()
        await runner.value
        await gpsd.kill()
    }
}

/// The first fix `source` receives after now, within `limit`. While the link
/// is down requests fail at once, so this retries (a bounded poll: outside the
/// hub there is no signal for "reconnected").
func firstFix(from source: GpsdLocationService, within limit: Duration) async -> LocationFix? {
    let since = ContinuousClock.now
    let deadline = since + limit
    while ContinuousClock.now < deadline {
        let request = LocationRequest(maxAge: .zero, timeout: deadline - ContinuousClock.now)
        if let fix = try? await source.location(request), fix.receivedAt > since { return fix }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return nil
}
