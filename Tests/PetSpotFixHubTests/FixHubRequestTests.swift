import PetSpotFixHub
import PetSpotLocation
import TestSupport
import Testing

@Suite struct FixHubRequestTests {
    @Test func cachedFixWithinMaxAgeAnswersAtOnce() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: "/dev/ttyACM0"))
        let cached = makeFix(receivedAt: .now - .seconds(2))
        hub.receive(.fix(cached))
        let start = ContinuousClock.now
        // Were it to wait, nothing would arrive and it would fail at the 60 s
        // timeout; "at once" is well under that, with room for a loaded machine.
        let answer = try await hub.location(LocationRequest(maxAge: .seconds(30), timeout: .seconds(60)))
        #expect(answer == cached)
        #expect(ContinuousClock.now - start < .seconds(20))
        #expect(hub.waiterCount == 0)
    }

    @Test func olderFixMakesTheRequestWaitForANewOne() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: nil))
        hub.receive(.fix(makeFix(latitude: 1, receivedAt: .now - .seconds(10))))
        let task = await startWaiting(on: hub, LocationRequest(maxAge: .seconds(5), timeout: .seconds(30)))
        let fresh = makeFix(latitude: 2)
        hub.receive(.fix(fresh))
        let result = try #require(await outcome(of: task))
        #expect(try result.get() == fresh)
        #expect(hub.waiterCount == 0)
    }

    @Test func beforeAnyEventRequestsWait() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        #expect(hub.link == .starting)
        #expect(hub.status().connected == false)
        let task = await startWaiting(on: hub, LocationRequest(timeout: .seconds(30)))
        let first = makeFix(latitude: 3)
        hub.receive(.fix(first))
        let result = try #require(await outcome(of: task))
        #expect(try result.get() == first)
        // A fix means the source is up.
        #expect(hub.status().connected)
    }

    @Test func firstFixMeetingDesiredAccuracyWins() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: nil))
        let task = await startWaiting(on: hub, LocationRequest(timeout: .seconds(30), desiredAccuracy: 10))
        hub.receive(.fix(makeFix(latitude: 1, accuracy: 50)))
        hub.receive(.fix(makeFix(latitude: 2, accuracy: nil)))
        #expect(hub.waiterCount == 1, "a fix worse than desired answered")
        let winner = makeFix(latitude: 3, accuracy: 8)
        hub.receive(.fix(winner))
        hub.receive(.fix(makeFix(latitude: 4, accuracy: 2)))
        let result = try #require(await outcome(of: task))
        #expect(try result.get() == winner)
    }

    @Test func atTheTimeoutTheBestFixSeenIsReturned() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: nil))
        // The fixes below must arrive before the timeout: long enough for a loaded machine.
        let task = await startWaiting(on: hub, LocationRequest(timeout: .seconds(10), desiredAccuracy: 1))
        let best = makeFix(latitude: 2, accuracy: 20)
        hub.receive(.fix(makeFix(latitude: 1, accuracy: 50)))
        hub.receive(.fix(best))
        hub.receive(.fix(makeFix(latitude: 3, accuracy: 30)))
        hub.receive(.fix(makeFix(latitude: 4, accuracy: nil)))
        let result = try #require(await outcome(of: task))
        #expect(try result.get() == best)
    }

    @Test func locationUnknownOnlyWhenNothingWasSeen() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: nil))
        hub.receive(.noFix)
        let start = ContinuousClock.now
        await #expect(throws: LocationError.locationUnknown) {
            try await hub.location(LocationRequest(timeout: .milliseconds(200)))
        }
        #expect(ContinuousClock.now - start >= .milliseconds(200))
        #expect(hub.waiterCount == 0)
    }

    /// A zero (or already elapsed) timeout must end the request, however
    /// the deadline and the wait are ordered on the actor.
    @Test func zeroTimeoutNeverHangs() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: nil))
        for _ in 0..<1000 {
            let task = Task { () -> Result<LocationFix, LocationError> in
                do throws(LocationError) {
                    return .success(try await hub.location(LocationRequest(timeout: .zero)))
                } catch {
                    return .failure(error)
                }
            }
            let result = await outcome(of: task, within: .seconds(60))
            #expect(result == .failure(.locationUnknown))
            if result == nil { break }
        }
        #expect(await eventually { hub.waiterCount == 0 })
    }

    @Test func cancellingAWaitingRequestEndsItAndRemovesTheWaiter() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: nil))
        let task = await startWaiting(on: hub, LocationRequest(timeout: .seconds(60)))
        task.cancel()
        #expect(try #require(await outcome(of: task)) == .failure(.locationUnknown))
        #expect(await eventually { hub.waiterCount == 0 })
        // A later fix is not handed to anyone, and the hub keeps working.
        let fix = makeFix()
        hub.receive(.fix(fix))
        #expect(try await hub.location(LocationRequest()) == fix)
    }

    @Test func requestMinModeSkipsLowerFixes() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: nil))
        hub.receive(.fix(makeFix(latitude: 1, mode: .twoD, altitude: nil)))
        // The fresh 2D fix does not answer a 3D request.
        let task = await startWaiting(on: hub, LocationRequest(timeout: .seconds(30), minMode: .threeD))
        hub.receive(.fix(makeFix(latitude: 2, mode: .twoD, altitude: nil)))
        #expect(hub.waiterCount == 1)
        let threeD = makeFix(latitude: 3, mode: .threeD)
        hub.receive(.fix(threeD))
        let result = try #require(await outcome(of: task))
        #expect(try result.get() == threeD)
    }

    @Test func requestMinModeWithOnlyLowerFixesIsLocationUnknown() async {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: nil))
        hub.receive(.fix(makeFix(mode: .twoD, altitude: nil)))
        await #expect(throws: LocationError.locationUnknown) {
            try await hub.location(LocationRequest(timeout: .milliseconds(200), minMode: .threeD))
        }
    }

    @Test func hubMinimumModeRejectsAndCounts() async {
        let hub = LiveFixHub(kind: .gpsd, minimumMode: .threeD)
        hub.receive(.connected(device: nil))
        hub.receive(.fix(makeFix(mode: .twoD, altitude: nil)))
        hub.receive(.fix(makeFix(mode: .twoD, altitude: nil)))
        let status = hub.status()
        #expect(status.rejected == 2)
        #expect(status.fixes == 0)
        #expect(status.lastFixAge == nil)
        #expect(hub.latest == nil)
        await #expect(throws: LocationError.locationUnknown) {
            try await hub.location(LocationRequest(timeout: .milliseconds(200)))
        }
    }

    @Test(arguments: [
        (Double.nan, 21.0), (91.0, 21.0), (-91.0, 21.0), (52.0, 181.0), (52.0, -.infinity), (.infinity, 0.0),
    ])
    func invalidCoordinatesAreDroppedAndCounted(latitude: Double, longitude: Double) async throws {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: nil))
        hub.receive(.fix(makeFix(latitude: latitude, longitude: longitude)))
        #expect(hub.status().rejected == 1)
        #expect(hub.status().fixes == 0)
        #expect(hub.latest == nil)
        await #expect(throws: LocationError.locationUnknown) {
            try await hub.location(LocationRequest(timeout: .milliseconds(200)))
        }
        // A waiting request is not answered by it either.
        let task = await startWaiting(on: hub, LocationRequest(timeout: .seconds(30)))
        hub.receive(.fix(makeFix(latitude: latitude, longitude: longitude)))
        #expect(hub.waiterCount == 1)
        let valid = makeFix(latitude: 10, longitude: 20)
        hub.receive(.fix(valid))
        let result = try #require(await outcome(of: task))
        #expect(try result.get() == valid)
        #expect(hub.status().rejected == 2)
        #expect(hub.status().fixes == 1)
    }

    @Test func acceptedFixIsSanitized() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.fix(makeFix(accuracy: -5, mode: .twoD, altitude: 100)))
        let answer = try await hub.location(LocationRequest(maxAge: .seconds(60), timeout: .seconds(60)))
        #expect(answer.horizontalAccuracy == nil)
        #expect(answer.altitude == nil)
    }

    @Test func producerRejectionsAreCounted() async {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.rejected(reason: "other device"))
        hub.receive(.rejected(reason: "unparseable"))
        hub.receive(.noFix)
        #expect(hub.status().rejected == 2)
        #expect(hub.status().fixes == 0)
    }
}

@Suite struct FixHubCachedBestTests {
    /// A fresh cached fix that misses desiredAccuracy was "seen": with
    /// nothing better by the timeout it is the answer, not locationUnknown.
    @Test func freshCachedFixIsTheTimeoutAnswer() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: nil))
        let cached = makeFix(accuracy: 50)
        hub.receive(.fix(cached))
        // (maxAge well past any delay of a loaded machine: the fix stays fresh.)
        let answer = try await hub.location(
            LocationRequest(maxAge: .seconds(60), timeout: .milliseconds(300), desiredAccuracy: 5))
        #expect(answer == cached)
    }

    /// A cached fix older than maxAge is not: it never answers.
    @Test func staleCachedFixIsNotTheTimeoutAnswer() async {
        let hub = LiveFixHub(kind: .gpsd)
        hub.receive(.connected(device: nil))
        hub.receive(.fix(makeFix(accuracy: 50, receivedAt: .now - .seconds(30))))
        await #expect(throws: LocationError.locationUnknown) {
            try await hub.location(
                LocationRequest(maxAge: .seconds(5), timeout: .milliseconds(300), desiredAccuracy: 5))
        }
    }
}
