import Foundation
import Glibc
import PetSpotFixHub
import PetSpotLocation
import TestSupport
import Testing

@testable import PetSpotGpsd

/// gpsfake replays run at most this many at once (2-core CI).
let replayGate = Gate(limit: 3)

/// The source against real gpsd 3.22 fed by gpsfake with the receiver captures.
@Suite("gpsd source against real gpsd", .timeLimit(.minutes(3)))
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
    static func replayOnce(_ capture: Capture) async throws -> Bool {
        let port = freeLoopbackPort()
        let output = NSTemporaryDirectory() + "petspot-gpsfake-\(port)-\(capture.file).out"
        defer { try? FileManager.default.removeItem(atPath: output) }
        // Fix-less captures are slowed (-c) so a request can time out while gpsd is still up.
        let slow = capture.hasFix ? [] : ["-c", "0.1"]
        let gpsfake = try BoundedProgram(
            ["/usr/bin/gpsfake", "-1", "-p", "-t", "-s", "38400", "-P", "\(port)"] + slow + [
                Captures.path(capture.file)
            ],
            limit: .seconds(60), outputPath: output)
        let source = GpsdLocationService(
            configuration: GpsdConfiguration(
                port: port, reconnectMax: .milliseconds(200), initialReconnectDelay: .milliseconds(20),
                pollInterval: .milliseconds(100)))
        let runner = Task { await source.run() }
        defer { runner.cancel() }

        if !capture.hasFix {
            let connected = await eventually(within: .seconds(15), every: .milliseconds(20)) {
                await source.sourceStatus().connected
            }
            if connected {
                await #expect(throws: LocationError.locationUnknown, "\(capture.file)") {
                    try await source.location(LocationRequest(timeout: .seconds(1)))
                }
            }
        }
        let status = await gpsfake.waitForExit(within: .seconds(60))
        if status == nil { await gpsfake.terminate() }
        runner.cancel()
        await runner.value
        guard status == 0 else {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            print("gpsfake exit \(String(describing: status)): \(text.prefix(300))")
            return false
        }

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
        if capture.hasFix {
            let last = try #require(expected.last, "gpsd reported no fix for \(capture.file)")
            let fix = try answer.get()
            #expect(abs(fix.coordinate.latitude - last.latitude) <= 1e-6)
            #expect(abs(fix.coordinate.longitude - last.longitude) <= 1e-6)
            #expect(fix.source == .gpsd)
            #expect(counters.fixes >= 1 && counters.fixes <= expected.count)
        } else {
            #expect(expected.isEmpty)
            #expect(counters.fixes == 0)
            #expect(throws: LocationError.self) { try answer.get() }
        }
        return true
    }

    // MARK: gpsd killed and restarted

    /// gpsd reading a synthetic receiver, SIGKILLed and restarted 20 times in
    /// one process: requests fail with sourceUnavailable within their timeout,
    /// fixes flow again within the backoff cap + 2 s, and no fd or thread leaks.
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
            configuration: GpsdConfiguration(port: port, reconnectMax: reconnectMax, silenceTimeout: .seconds(5)))
        let device = "tcp://127.0.0.1:\(receiver.port)"
        var gpsd = try GpsdDaemon(port: port, devices: [device])
        let runner = Task { await source.run() }

        func cycle() async throws {
            await gpsd.kill()
            let start = ContinuousClock.now
            var outcome: LocationError?
            while outcome == nil, ContinuousClock.now - start < .seconds(3) {
                do {
                    _ = try await source.location(LocationRequest(maxAge: .zero, timeout: .seconds(3)))
                    // A line gpsd sent before it died; ask again.
                } catch {
                    outcome = error
                }
            }
            #expect(outcome == .sourceUnavailable)
            #expect(ContinuousClock.now - start < .seconds(3) + .milliseconds(500))
            gpsd = try GpsdDaemon(port: port, devices: [device])
            let restarted = ContinuousClock.now
            var fix = await firstFix(from: source, within: reconnectMax + .seconds(2))
            if fix == nil, gpsd.hasExited {
                // gpsd itself failed to start (port still held); that is not the source's fault.
                gpsd = try GpsdDaemon(port: port, devices: [device])
                fix = await firstFix(from: source, within: reconnectMax + .seconds(2))
            }
            #expect(fix != nil, "no fix within the backoff cap + 2 s after restart")
            #expect(ContinuousClock.now - restarted <= reconnectMax + .seconds(2) + .milliseconds(500))
        }

        do {
            let first = await firstFix(from: source, within: .seconds(10))
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
            // One leaked descriptor or thread per cycle would show 20.
            #expect(after.fileDescriptors - before.fileDescriptors < 5, "before \(before), after \(after)")
            #expect(after.threads - before.threads < 5, "before \(before), after \(after)")
            let status = await source.sourceStatus()
            #expect(status.reconnects >= 21)
            #expect(status.connected)
        }
        runner.cancel()
        await runner.value
        await gpsd.kill()
    }

    /// A receiver that loses its fix: gpsd sends mode 1 reports after the
    /// fixes, and a request with maxAge 1 s no longer gets the old fix.
    @Test func receiverLosesItsFix() async throws {
        let hasFix = Locked(true)
        let receiver = try SyntheticReceiver.serve(hasFix: hasFix)
        defer { receiver.stop() }
        let port = freeLoopbackPort()
        let gpsd = try GpsdDaemon(port: port, devices: ["tcp://127.0.0.1:\(receiver.port)"])
        let source = GpsdLocationService(configuration: GpsdConfiguration(port: port, reconnectMax: .seconds(1)))
        let runner = Task { await source.run() }
        let first = await firstFix(from: source, within: .seconds(10))
        #expect(first?.source == .gpsd)
        hasFix.value = false
        // gpsd keeps reporting (mode 1); once the last fix is over 1 s old, it must not answer.
        try await Task.sleep(for: .milliseconds(1500))
        await #expect(throws: LocationError.locationUnknown) {
            try await source.location(LocationRequest(maxAge: .seconds(1), timeout: .seconds(1)))
        }
        #expect(await source.sourceStatus().connected)
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
