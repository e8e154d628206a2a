import PetSpotFixHub
import PetSpotLocation
import Testing

private let fallbackCoordinate = Coordinate(latitude: 50.0614, longitude: 19.9366)

private func staticFallback() -> Fallback {
    Fallback(kind: .static) { now in
        LocationFix(
            coordinate: fallbackCoordinate, horizontalAccuracy: 30, mode: .twoD, source: .static, receivedAt: now)
    }
}

@Suite struct FixHubOutageTests {
    @Test func disconnectedFailsNewRequestsAtOnce() async {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: nil))
        hub.receive(.disconnected(reason: "connection refused"))
        #expect(hub.link == .down(reason: "connection refused"))
        let start = ContinuousClock.now
        await #expect(throws: LocationError.sourceUnavailable) {
            try await hub.location(LocationRequest(timeout: .seconds(30)))
        }
        #expect(ContinuousClock.now - start < .seconds(20), "not at once, as if it waited for the 30 s timeout")
        #expect(hub.status().connected == false)
    }

    @Test func failedFirstAttemptFailsRequests() async {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.disconnected(reason: "no gpsd"))
        await #expect(throws: LocationError.sourceUnavailable) {
            try await hub.location(LocationRequest(timeout: .seconds(30)))
        }
    }

    @Test func pendingWaitersFailWithSourceUnavailable() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: nil))
        let first = await startWaiting(on: hub, LocationRequest(timeout: .seconds(30)))
        let second = await startWaiting(on: hub, LocationRequest(timeout: .seconds(30), minMode: .threeD), waiters: 2)
        hub.receive(.disconnected(reason: "gpsd closed"))
        #expect(try #require(await outcome(of: first)) == .failure(.sourceUnavailable))
        #expect(try #require(await outcome(of: second)) == .failure(.sourceUnavailable))
        #expect(hub.waiterCount == 0)
    }

    @Test func pendingWaiterWithABestFixGetsItOnOutage() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: nil))
        let task = await startWaiting(on: hub, LocationRequest(timeout: .seconds(30), desiredAccuracy: 1))
        let seen = makeFix(accuracy: 40)
        hub.receive(.fix(seen))
        hub.receive(.disconnected(reason: "gpsd closed"))
        #expect(try #require(await outcome(of: task)) == .success(seen))
    }

    @Test func freshCachedFixStillAnswersWhileDown() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        let cached = makeFix()
        hub.receive(.fix(cached))
        hub.receive(.disconnected(reason: "gone"))
        #expect(try await hub.location(LocationRequest(maxAge: .seconds(60), timeout: .seconds(30))) == cached)
        await #expect(throws: LocationError.sourceUnavailable) {
            try await hub.location(LocationRequest(maxAge: .zero, timeout: .seconds(30)))
        }
    }

    @Test func reconnectsAreCountedButNotTheFirstConnection() async {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.disconnected(reason: "first attempt failed"))
        hub.receive(.connected(device: "/dev/ttyUSB0"))
        #expect(hub.status().reconnects == 0)
        #expect(hub.status().connected)
        #expect(hub.status().device == "/dev/ttyUSB0")
        hub.receive(.connected(device: "/dev/ttyUSB0"))  // no outage in between
        #expect(hub.status().reconnects == 0)
        hub.receive(.disconnected(reason: "closed"))
        #expect(hub.status().connected == false)
        #expect(hub.status().device == nil)
        hub.receive(.connected(device: nil))
        #expect(hub.status().reconnects == 1)
        hub.receive(.disconnected(reason: "closed"))
        hub.receive(.disconnected(reason: "retry failed"))
        hub.receive(.connected(device: nil))
        #expect(hub.status().reconnects == 2)
    }

    @Test func statusCountsAndAges() async throws {
        let hub = LiveFixHub(kind: .simulated, fallback: staticFallback())
        hub.receive(.connected(device: "simulated"))
        hub.receive(.fix(makeFix(receivedAt: .now - .seconds(3))))
        hub.receive(.fix(makeFix(latitude: 95)))
        let status = hub.status()
        #expect(status.kind == .simulated)
        #expect(status.fixes == 1)
        #expect(status.rejected == 1)
        #expect(status.fallback == .static)
        let age = try #require(status.lastFixAge)
        #expect(age >= 3 && age < 60)
    }
}

@Suite struct FixHubFallbackTests {
    @Test func answersAtOnceFromTheFallbackWhileStarting() async throws {
        let hub = LiveFixHub(kind: .gpsd, fallback: staticFallback())
        let start = ContinuousClock.now
        let answer = try await hub.location(LocationRequest(timeout: .seconds(30)))
        #expect(answer.source == .static)
        #expect(answer.coordinate == fallbackCoordinate)
        #expect(ContinuousClock.now - start < .seconds(20), "not at once, as if it waited for the 30 s timeout")
        #expect(answer.age() < 20)
    }

    @Test func answersFromTheFallbackWhenDown() async throws {
        let hub = LiveFixHub(kind: .gpsd, fallback: staticFallback())
        hub.receive(.connected(device: nil))
        hub.receive(.disconnected(reason: "gone"))
        let answer = try await hub.location(LocationRequest(timeout: .seconds(30)))
        #expect(answer.source == .static)
        #expect(answer.coordinate == fallbackCoordinate)
    }

    @Test func answersFromTheFallbackWhenThePrimaryFixIsTooOld() async throws {
        let hub = LiveFixHub(kind: .gpsd, fallback: staticFallback())
        hub.receive(.connected(device: nil))
        hub.receive(.fix(makeFix(receivedAt: .now - .seconds(30))))
        let answer = try await hub.location(LocationRequest(maxAge: .seconds(5), timeout: .seconds(30)))
        #expect(answer.source == .static)
    }

    /// Hardening item 21: a fresh primary fix that only misses desiredAccuracy
    /// is waited on (and answers at the timeout), never replaced by the fallback.
    @Test func item21_aFreshFixMissingDesiredAccuracyIsNotReplacedByTheFallback() async throws {
        let hub = LiveFixHub(kind: .gpsd, fallback: staticFallback())
        hub.receive(.connected(device: nil))
        let rough = makeFix()
        hub.receive(.fix(rough))
        let answer = try await hub.location(
            LocationRequest(maxAge: .seconds(60), timeout: .milliseconds(200), desiredAccuracy: 0.5))
        #expect(answer.source != .static)
        #expect(answer == rough)
    }

    /// Hardening item 21: the fallback never answers below the request's minMode.
    @Test func item21_theFallbackNeverAnswersBelowMinMode() async throws {
        let hub = LiveFixHub(kind: .gpsd, fallback: staticFallback())
        hub.receive(.connected(device: nil))
        hub.receive(.disconnected(reason: "gone"))
        await #expect(throws: LocationError.sourceUnavailable) {
            try await hub.location(LocationRequest(timeout: .seconds(30), minMode: .threeD))
        }
        #expect(try await hub.location(LocationRequest(minMode: .twoD)).source == .static)
    }

    @Test func freshPrimaryFixWinsOverTheFallback() async throws {
        let hub = LiveFixHub(kind: .gpsd, fallback: staticFallback())
        hub.receive(.connected(device: nil))
        hub.receive(.disconnected(reason: "gone"))
        #expect(try await hub.location(LocationRequest()).source == .static)
        hub.receive(.connected(device: nil))
        let primary = makeFix()
        hub.receive(.fix(primary))
        #expect(try await hub.location(LocationRequest(maxAge: .seconds(60))) == primary)
    }
}
