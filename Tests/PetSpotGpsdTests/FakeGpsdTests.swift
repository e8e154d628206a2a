import Foundation
import PetSpotFixHub
import PetSpotLocation
import PetSpotSettings
import Synchronization
import TestSupport
import Testing

@testable import PetSpotGpsd

/// Fault injection beyond what gpsd emits: a fake gpsd speaking its JSON
/// protocol on a loopback port.
@Suite("gpsd source against a fake gpsd", .timeLimit(.minutes(1)))
struct FakeGpsdTests {
    /// Runs a `GpsdLocationService` against `server` while `body` runs; stops it afterwards.
    static func withSource<T: Sendable>(
        port: Int, device: String? = nil, silence: Duration = .seconds(10), fallback: Fallback? = nil,
        _ body: @Sendable (GpsdLocationService) async throws -> T
    ) async rethrows -> T {
        let source = GpsdLocationService(
            settings: GpsdSettings(port: port, reconnectMax: .seconds(1), device: device, silenceTimeout: silence),
            initialReconnectDelay: .milliseconds(100),
            fallback: fallback)
        let runner = Task { await source.run() }
        defer { runner.cancel() }
        let result = try await body(source)
        runner.cancel()
        await runner.value
        return result
    }

    /// A server that greets, sends `lines`, then stays connected and silent.
    static func script(_ lines: [String]) throws -> LineServer {
        try LineServer { connection in
            for line in GpsdJSON.greeting + lines where !connection.sendLine(line) { return }
            _ = connection.idle(for: nil)
        }
    }

    static func waitForCounts(_ hub: LiveFixHub, fixes: Int, rejected: Int) async -> Bool {
        await eventually(within: .seconds(60), every: .milliseconds(20)) {
            let status = hub.status()
            return status.fixes >= fixes && status.rejected >= rejected
        }
    }

    /// Context switches of thread `id` of this process so far.
    static func switches(ofThread id: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/task/\(id)/status", encoding: .utf8)
        return status.split(separator: "\n").filter { $0.contains("ctxt_switches") }
            .compactMap { $0.split(separator: "\t").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) } }
            .reduce(0, +)
    }

    /// The reader thread sleeps while gpsd is silent: it wakes for data, a
    /// stop or the silence deadline, never on a timer (issue 28: a device
    /// pays for every wake-up). A stop wakes it at once.
    @Test func theReaderSleepsWhileGpsdIsSilentAndWakesAtOnceToStop() async throws {
        // One line (the reader's first event), then nothing more.
        let server = try LineServer { connection in
            guard connection.sendLine(GpsdJSON.greeting[0]) else { return }
            _ = connection.idle(for: nil)
        }
        defer { server.stop() }
        let (events, continuation) = AsyncStream<ReaderEvent>.makeStream()
        let stop = StopFlag()
        async let ended = GpsdReader.run(
            GpsdSettings(port: server.port, silenceTimeout: .seconds(60)), stop: stop
        ) { continuation.yield($0) }
        var iterator = events.makeAsyncIterator()
        guard case .alive? = await iterator.next() else {
            Issue.record("the reader never heard gpsd")
            stop.stop()
            _ = await ended
            return
        }
        let thread = stop.readerThread.load(ordering: .relaxed)
        try #require(thread > 0)
        let before = try Self.switches(ofThread: thread)
        // The window measured (not a wait for an event): gpsd says nothing in it.
        try await Task.sleep(for: .seconds(2))
        let during = try Self.switches(ofThread: thread) - before
        #expect(during <= 1, "the reader woke \(during) times in 2 s of silence")
        stop.stop()
        #expect(await ended == "stopped")
    }

    /// A fix from gpsd reaches the hub's observers on the reader thread
    /// itself (issue 28): no task and no pool thread wakes for it, so a
    /// 1 Hz receiver costs the reader's wake-up and the event loops' that
    /// have watchers, nothing more.
    @Test func aFixReachesTheObserversOnTheReaderThread() async throws {
        let server = try Self.script([GpsdJSON.tpv(#""mode":3,"lat":-12.5,"lon":-45.25"#)])
        defer { server.stop() }
        let (threads, continuation) = AsyncStream<String>.makeStream()
        await Self.withSource(port: server.port) { source in
            let end = source.hub.observe { _ in
                let name = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
                continuation.yield(name.trimmingCharacters(in: .whitespacesAndNewlines))
            }
            defer { end() }
            var iterator = threads.makeAsyncIterator()
            let thread = await iterator.next()
            #expect(thread == "petspot-gpsd")
        }
    }

    @Test func invalidCoordinatesAreRejectedAndCounted() async throws {
        let server = try Self.script([
            GpsdJSON.tpv(#""mode":3,"lat":NaN,"lon":4.5"#),
            GpsdJSON.tpv(#""mode":3,"lat":91.5,"lon":4.5"#),
            GpsdJSON.tpv(#""mode":3,"lat":45.0,"lon":-181.0"#),
            GpsdJSON.tpv(#""mode":2,"lat":1e999,"lon":4.5"#),
            GpsdJSON.tpv(#""mode":3,"lat":-12.5,"lon":-45.25,"eph":7.5"#),
        ])
        defer { server.stop() }
        try await Self.withSource(port: server.port) { source in
            #expect(await Self.waitForCounts(source.hub, fixes: 1, rejected: 4))
            let fix = try await source.location(LocationRequest(maxAge: .seconds(60), timeout: .seconds(30)))
            #expect(fix.coordinate == Coordinate(latitude: -12.5, longitude: -45.25))
            #expect(fix.horizontalAccuracy == 7.5)
            let status = await source.sourceStatus()
            #expect(status.fixes == 1)
            #expect(status.rejected == 4)
            #expect(status.connected)
        }
    }

    @Test func modeZeroAndOneReportsAreNoFix() async throws {
        let server = try Self.script([
            GpsdJSON.tpv(#""mode":0"#),
            GpsdJSON.tpv(#""mode":1,"lat":10.0,"lon":20.0"#),
            GpsdJSON.tpv(#""mode":1"#),
        ])
        defer { server.stop() }
        await Self.withSource(port: server.port) { source in
            #expect(
                await eventually(within: .seconds(60), every: .milliseconds(20)) {
                    await source.sourceStatus().connected
                })
            await #expect(throws: LocationError.locationUnknown) {
                try await source.location(LocationRequest(timeout: .seconds(1)))
            }
            #expect(await source.sourceStatus().fixes == 0)
        }
    }

    @Test func truncatedJSONIsRejected() async throws {
        let server = try LineServer { connection in
            for line in GpsdJSON.greeting where !connection.sendLine(line) { return }
            connection.sendLine(#"{"class":"TPV","device":"/dev/ttyFAKE0","mode":3,"lat":51.0,"lon":4.5,"alt"#)
            connection.sendLine(#"{"class":"TPV","device":"/dev/ttyFAKE0","mo"#)
            connection.sendLine(GpsdJSON.tpv(#""mode":2,"lat":51.25,"lon":4.75"#))
            // A line cut off by the connection closing.
            connection.send(#"{"class":"TPV","device":"/dev/ttyFAKE0","mode":3,"lat":"#)
        }
        defer { server.stop() }
        try await Self.withSource(port: server.port) { source in
            #expect(await Self.waitForCounts(source.hub, fixes: 1, rejected: 2))
            let fix = try await source.location(LocationRequest(maxAge: .seconds(60), timeout: .seconds(30)))
            #expect(fix.coordinate == Coordinate(latitude: 51.25, longitude: 4.75))
            #expect(await source.sourceStatus().fixes == 1)
            // The source reconnects after the close.
            #expect(await eventually(within: .seconds(60), every: .milliseconds(20)) { server.acceptedCount >= 2 })
        }
    }

    @Test func silentGpsdTripsTheWatchdog() async throws {
        let server = try LineServer { connection in _ = connection.idle(for: nil) }
        defer { server.stop() }
        await Self.withSource(port: server.port, silence: .seconds(1)) { source in
            let start = ContinuousClock.now
            await #expect(throws: LocationError.sourceUnavailable) {
                try await source.location(LocationRequest(timeout: .seconds(30)))
            }
            #expect(ContinuousClock.now - start < .seconds(30))
            #expect(await source.sourceStatus().connected == false)
        }

    }

    @Test func silenceAfterGreetingAlsoTripsTheWatchdog() async throws {
        let server = try Self.script([GpsdJSON.tpv(#""mode":3,"lat":1.5,"lon":2.5"#)])
        defer { server.stop() }
        await Self.withSource(port: server.port, silence: .seconds(1)) { source in
            #expect(await Self.waitForCounts(source.hub, fixes: 1, rejected: 0))
            #expect(
                await eventually(within: .seconds(60), every: .milliseconds(20)) {
                    await !source.sourceStatus().connected
                })
            // … and it reconnects to the same fake.
            #expect(await eventually(within: .seconds(60), every: .milliseconds(20)) { server.acceptedCount >= 2 })
        }
    }

    @Test func refusedConnectionFailsRequestsFast() async throws {
        let port = freeLoopbackPort()
        await Self.withSource(port: port) { source in
            let start = ContinuousClock.now
            await #expect(throws: LocationError.sourceUnavailable) {
                try await source.location(LocationRequest(timeout: .seconds(30)))
            }
            #expect(ContinuousClock.now - start < .seconds(30))
        }
    }

    @Test func deviceFilterKeepsOnlyTheConfiguredDevice() async throws {
        let server = try Self.script([
            GpsdJSON.tpv(device: "/dev/ttyOTHER", #""mode":3,"lat":10.0,"lon":10.0"#),
            GpsdJSON.tpv(device: "/dev/ttyWANTED", #""mode":3,"lat":20.0,"lon":-20.0"#),
            GpsdJSON.tpv(device: "/dev/ttyOTHER", #""mode":3,"lat":30.0,"lon":30.0"#),
        ])
        defer { server.stop() }
        try await Self.withSource(port: server.port, device: "/dev/ttyWANTED") { source in
            #expect(await Self.waitForCounts(source.hub, fixes: 1, rejected: 2))
            let fix = try await source.location(LocationRequest(maxAge: .seconds(60)))
            #expect(fix.coordinate == Coordinate(latitude: 20, longitude: -20))
            let status = await source.sourceStatus()
            #expect(status.device == "/dev/ttyWANTED")
            #expect(status.fixes == 1)
        }
    }

    @Test func lostFixIsNotReportedAsCurrent() async throws {
        let server = try LineServer { connection in
            for line in GpsdJSON.greeting where !connection.sendLine(line) { return }
            connection.sendLine(GpsdJSON.tpv(#""mode":3,"lat":5.0,"lon":6.0"#))
            while connection.sendLine(GpsdJSON.tpv(#""mode":1"#)) {
                if !connection.idle(for: .milliseconds(100)) { return }
            }
        }
        defer { server.stop() }
        try await Self.withSource(port: server.port) { source in
            #expect(await Self.waitForCounts(source.hub, fixes: 1, rejected: 0))
            _ = try await source.location(LocationRequest(maxAge: .seconds(60)))
            // Let the fix age past the request's maxAge (time passing is the point here).
            try await Task.sleep(for: .milliseconds(1100))
            await #expect(throws: LocationError.locationUnknown) {
                try await source.location(LocationRequest(maxAge: .seconds(1), timeout: .seconds(1)))
            }
        }
    }

    /// Each input that hung libgps 3.22's parser, sent as a gpsd line: the
    /// reader rejects it and the next TPV still gives a fix.
    @Test(arguments: [
        "regression-libgps-unpack-hang-malformed", "regression-libgps-unpack-hang-nested",
        "regression-libgps-unpack-hang-unknown-keys",
    ])
    func libgpsHangInputDoesNotStopTheSource(name: String) async throws {
        let hang = try GpsdRegressions.bytes(name)
        let server = try LineServer { connection in
            for line in GpsdJSON.greeting where !connection.sendLine(line) { return }
            guard connection.send(bytes: hang + Array("\r\n".utf8)) else { return }
            connection.sendLine(GpsdJSON.tpv(#""mode":3,"lat":48.5,"lon":-2.25"#))
            _ = connection.idle(for: nil)
        }
        defer { server.stop() }
        try await Self.withSource(port: server.port) { source in
            // Bounded: the request fails after 30 s if the reader is stuck.
            let fix = try await source.location(LocationRequest(maxAge: .seconds(60), timeout: .seconds(30)))
            #expect(fix.coordinate == Coordinate(latitude: 48.5, longitude: -2.25))
            let status = await source.sourceStatus()
            #expect(status.rejected == 1)
            #expect(status.connected)
        }
    }

    /// Lines as they come off a socket: several in one read, one split
    /// across reads, `\n` and `\r\n` endings, and an over-long line that is
    /// discarded and counted.
    @Test func linesAreFramedWhateverTheReads() async throws {
        let overlong = GpsdJSON.tpv(#""mode":3,"lat":1.0,"lon":1.0,"pad":"\#(String(repeating: "x", count: 9000))""#)
        let split = GpsdJSON.tpv(#""mode":3,"lat":3.5,"lon":3.5"#) + "\r\n"
        let splitAt = split.index(split.startIndex, offsetBy: 40)
        let server = try LineServer { connection in
            for line in GpsdJSON.greeting where !connection.sendLine(line) { return }
            guard
                connection.send(
                    GpsdJSON.tpv(#""mode":3,"lat":1.5,"lon":1.5"#) + "\n"
                        + GpsdJSON.tpv(#""mode":3,"lat":2.5,"lon":2.5"#) + "\r\n" + String(split[..<splitAt])),
                connection.idle(for: .milliseconds(200)),
                connection.send(String(split[splitAt...])),
                connection.sendLine(overlong),
                connection.sendLine(GpsdJSON.tpv(#""mode":3,"lat":4.5,"lon":4.5"#))
            else { return }
            _ = connection.idle(for: nil)
        }
        defer { server.stop() }
        try await Self.withSource(port: server.port) { source in
            #expect(await Self.waitForCounts(source.hub, fixes: 4, rejected: 1))
            let fix = try await source.location(LocationRequest(maxAge: .seconds(60), timeout: .seconds(30)))
            #expect(fix.coordinate == Coordinate(latitude: 4.5, longitude: 4.5))
            let status = await source.sourceStatus()
            #expect(status.fixes == 4)
            #expect(status.rejected == 1)
        }
    }

    /// Bytes that never end a line are not gpsd talking: the watchdog ends
    /// the session (and memory stays bounded meanwhile).
    @Test func endlessLineTripsTheWatchdog() async throws {
        let server = try LineServer { connection in
            for line in GpsdJSON.greeting where !connection.sendLine(line) { return }
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 4096)
            while connection.send(bytes: chunk), connection.idle(for: .milliseconds(20)) {}
        }
        defer { server.stop() }
        await Self.withSource(port: server.port, silence: .seconds(1)) { source in
            #expect(
                await eventually(within: .seconds(60), every: .milliseconds(20)) {
                    await source.sourceStatus().connected
                })
            #expect(
                await eventually(within: .seconds(60), every: .milliseconds(20)) {
                    await !source.sourceStatus().connected
                })
            #expect(await eventually(within: .seconds(60), every: .milliseconds(20)) { server.acceptedCount >= 2 })
        }
    }

    /// An idle connection costs no CPU: the reader thread sleeps in `poll`.
    @Test func idleConnectionUsesNoCPU() async throws {
        let server = try Self.script([GpsdJSON.tpv(#""mode":3,"lat":1.5,"lon":2.5"#)])
        defer { server.stop() }
        try await Self.withSource(port: server.port) { source in
            #expect(await Self.waitForCounts(source.hub, fixes: 1, rejected: 0))
            let before = ReaderThreads.cpuTicks()
            try await Task.sleep(for: .seconds(2))
            let after = ReaderThreads.cpuTicks()
            try #require(after.threads >= 1, "no thread named petspot-gpsd")
            // A busy loop would use ~200 ticks (100 Hz) in 2 s; polling every 100 ms uses ~0.
            #expect(after.ticks - before.ticks < 20, "reader threads used \(after.ticks - before.ticks) ticks in 2 s")
        }
    }

    static let staticFallback = Fallback(kind: .static) { now in
        LocationFix(
            coordinate: Coordinate(latitude: 52.2297, longitude: 21.0122), horizontalAccuracy: 30,
            mode: .twoD, source: .static, receivedAt: now)
    }

    @Test func fallbackAnswersUntilGpsdHasAFix() async throws {
        let release = DispatchSemaphore(value: 0)
        let server = try LineServer { connection in
            for line in GpsdJSON.greeting + [GpsdJSON.tpv(#""mode":1"#)] where !connection.sendLine(line) { return }
            guard release.wait(timeout: .now() + 20) == .success else { return }
            while connection.sendLine(GpsdJSON.tpv(#""mode":3,"lat":-33.5,"lon":-70.5"#)) {
                if !connection.idle(for: .milliseconds(100)) { return }
            }
        }
        defer { server.stop() }
        try await Self.withSource(port: server.port, fallback: Self.staticFallback) { source in
            #expect(
                await eventually(within: .seconds(60), every: .milliseconds(20)) {
                    await source.sourceStatus().connected
                })
            let before = try await source.location(LocationRequest(maxAge: .seconds(1)))
            #expect(before.source == .static)
            release.signal()
            #expect(await Self.waitForCounts(source.hub, fixes: 1, rejected: 0))
            let after = try await source.location(LocationRequest(maxAge: .seconds(1)))
            #expect(after.source == .gpsd)
            #expect(after.coordinate == Coordinate(latitude: -33.5, longitude: -70.5))
            // gpsd gone: the fallback answers at once.
            server.stop()
            #expect(
                await eventually(within: .seconds(60), every: .milliseconds(20)) {
                    await !source.sourceStatus().connected
                })
            try await Task.sleep(for: .milliseconds(1100))
            let down = try await source.location(LocationRequest(maxAge: .seconds(1)))
            #expect(down.source == .static)
        }
    }
}
