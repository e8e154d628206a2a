import PetSpotFixHub
import PetSpotLocation
import PetSpotSimulatedSource
import Synchronization
import TestSupport
import Testing

/// Records the hub's newest fix each time an `authorization` step runs: a
/// marker between scripted fixes that needs no timing.
actor Probe {
    private(set) var seen: [LocationFix?] = []
    func record(_ fix: LocationFix?) { seen.append(fix) }
}

private func marker() -> Scenario.Step { .authorization(.authorized, .full) }

@Suite struct ScenarioPlayerTests {
    @Test func fixesArriveInOrderAndPathEndpointsAreExact() async throws {
        let hub = LiveFixHub(kind: .simulated)
        let probe = Probe()
        let from = Coordinate(latitude: 52.2297, longitude: 21.0122)
        let to = Coordinate(latitude: 52.2307, longitude: 21.0142)
        let scenario = Scenario(steps: [
            .fix(ScriptedFix(latitude: 10, longitude: 20, altitude: 5, horizontalAccuracy: 3)), marker(),
            .path(from: from, to: to, count: 1, interval: .zero, template: ScriptedFix(latitude: 0, longitude: 0)),
            marker(),
            .path(
                from: from, to: to, count: 5, interval: .zero,
                template: ScriptedFix(latitude: 0, longitude: 0, horizontalAccuracy: 7)),
            marker(),
        ])
        await ScenarioPlayer(scenario: scenario) { _, _ in await probe.record(hub.latest) }.run(
            reportingTo: hub)

        let seen = await probe.seen
        try #require(seen.count == 3)
        let first = try #require(seen[0])
        #expect(first.coordinate == Coordinate(latitude: 10, longitude: 20))
        #expect(first.altitude == 5)
        #expect(first.horizontalAccuracy == 3)
        #expect(first.mode == .threeD)
        #expect(first.source == .simulated)
        // A one-fix path lands on its end point.
        #expect(try #require(seen[1]).coordinate == to)
        let last = try #require(seen[2])
        #expect(last.coordinate == to)
        #expect(last.horizontalAccuracy == 7)
        #expect(last.mode == .twoD)
        let status = hub.status()
        #expect(status.fixes == 1 + 1 + 5)
        #expect(status.connected)
        #expect(status.device == "simulated")
    }

    /// Each path fix reaches the hub, `interval` apart (the interval paces
    /// the player); the first is exactly `from`, the last exactly `to`. An
    /// observer hears every fix as the hub takes it: a watch stream keeps only
    /// the newest, and its reader may fall behind on a loaded machine.
    @Test func pathInterpolatesEvenly() async throws {
        let hub = LiveFixHub(kind: .simulated)
        let heard = Mutex<[LocationFix]>([])
        let end = hub.observe { fix in heard.withLock { $0.append(fix) } }
        defer { end() }
        let from = Coordinate(latitude: 10, longitude: 20)
        let to = Coordinate(latitude: 11, longitude: 22)
        await ScenarioPlayer(
            scenario: Scenario(steps: [
                .path(
                    from: from, to: to, count: 3, interval: .milliseconds(300),
                    template: ScriptedFix(latitude: 0, longitude: 0))
            ])
        ).run(reportingTo: hub)
        let fixes = heard.withLock { $0 }
        #expect(fixes.map(\.coordinate) == [from, Coordinate(latitude: 10.5, longitude: 21), to])
        for (previous, next) in zip(fixes, fixes.dropFirst()) {
            #expect(next.receivedAt - previous.receivedAt >= .milliseconds(300), "paced by the interval")
        }
        #expect(hub.status().fixes == 3)
    }

    @Test func invalidScriptedFixesAreRejected() async {
        let hub = LiveFixHub(kind: .simulated)
        await ScenarioPlayer(
            scenario: Scenario(steps: [
                .fix(ScriptedFix(latitude: 91, longitude: 0)), .fix(ScriptedFix(latitude: 0, longitude: .nan)),
                .fix(ScriptedFix(latitude: 1, longitude: 1)),
            ])
        ).run(reportingTo: hub)
        let status = hub.status()
        #expect(status.rejected == 2)
        #expect(status.fixes == 1)
        #expect(hub.latest?.coordinate == Coordinate(latitude: 1, longitude: 1))
    }

    @Test func outageMakesTheSourceUnavailableDuringIt() async throws {
        let hub = LiveFixHub(kind: .simulated)
        let player = Task {
            await ScenarioPlayer(
                scenario: Scenario(steps: [
                    .fix(ScriptedFix(latitude: 1, longitude: 1)), .outage(.seconds(600), reason: "unplugged"),
                ])
            ).run(reportingTo: hub)
        }
        #expect(await eventually { hub.link == .down(reason: "unplugged") })
        await #expect(throws: LocationError.sourceUnavailable) {
            try await hub.location(LocationRequest(maxAge: .zero, timeout: .seconds(30)))
        }
        // Cancelling stops the player promptly, in the middle of the outage.
        player.cancel()
        await player.value
        #expect(hub.link == .down(reason: "unplugged"))
    }

    @Test func outageEndsWithAReconnection() async {
        let hub = LiveFixHub(kind: .simulated)
        await ScenarioPlayer(scenario: Scenario(steps: [.outage(.zero, reason: "blip")])).run(reportingTo: hub)
        #expect(hub.link == .up(device: "simulated"))
        #expect(hub.status().reconnects == 1)
    }

    @Test func noFixKeepsTheSourceUp() async {
        let hub = LiveFixHub(kind: .simulated)
        await ScenarioPlayer(scenario: Scenario(steps: [.noFix(.zero)])).run(reportingTo: hub)
        #expect(hub.link == .up(device: "simulated"))
        await #expect(throws: LocationError.locationUnknown) {
            try await hub.location(LocationRequest(timeout: .milliseconds(200)))
        }
    }

    @Test(.timeLimit(.minutes(1))) func loopingScenarioRepeatsUntilCancelled() async throws {
        let hub = LiveFixHub(kind: .simulated)
        // Waits for the fixes themselves (no polling against a deadline:
        // under ThreadSanitizer on a loaded machine 5 s was not enough).
        let fixes = hub.updates(WatchOptions())
        let player = Task {
            await ScenarioPlayer(
                scenario: Scenario(
                    steps: [.fix(ScriptedFix(latitude: 1, longitude: 1)), .wait(.milliseconds(10))], loops: true)
            ).run(reportingTo: hub)
        }
        var received = 0
        for try await _ in fixes {
            received += 1
            if received == 3 { break }
        }
        #expect(received == 3)
        // Returning at all shows the loop honours cancellation.
        player.cancel()
        await player.value
    }
}
