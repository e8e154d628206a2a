import PetSpotFixHub
import PetSpotLocation
import PetSpotLocationMock
import PetSpotSimulatedSource
import TestSupport
import Testing

private let undecided = AuthorizationState(status: .notDetermined, decidedBy: .default)

private func sampleFix(latitude: Double = 52.2297) -> LocationFix {
    LocationFix(
        coordinate: Coordinate(latitude: latitude, longitude: 21.0122), horizontalAccuracy: 5, mode: .twoD,
        source: .simulated)
}

@Suite struct MockAuthorizationTests {
    @Test(arguments: [
        (AuthorizationStatus.notDetermined, LocationError.notDetermined), (.denied, .denied),
        (.restricted, .restricted),
    ])
    func locationIsRefusedUnlessAuthorized(status: AuthorizationStatus, error: LocationError) async {
        let mock = MockLocationService(authorization: AuthorizationState(status: status, decidedBy: .rule))
        await mock.send(.fix(sampleFix()))
        await #expect(throws: error) { try await mock.location(LocationRequest()) }
    }

    @Test func allowFull() async throws {
        let mock = MockLocationService(authorization: undecided, promptAnswer: .allow(.full))
        await mock.send(.fix(sampleFix()))
        await #expect(throws: LocationError.notDetermined) { try await mock.location(LocationRequest()) }
        let state = try await mock.requestAuthorization(accuracy: .full)
        #expect(state.status == .authorized)
        #expect(state.accuracy == .full)
        #expect(state.decidedBy == .decision)
        #expect(try await mock.authorizationStatus() == state)
        #expect(await mock.prompts == 1)
        #expect(await mock.authorizationRequests == 1)
        let fix = try await mock.location(LocationRequest())
        #expect(fix.accuracy == .full)
        #expect(fix.coordinate == sampleFix().coordinate)
    }

    @Test func allowReducedMarksFixesReducedWithoutSnapping() async throws {
        let mock = MockLocationService(authorization: undecided, promptAnswer: .allow(.reduced))
        let state = try await mock.requestAuthorization(accuracy: .full)
        #expect(state.status == .authorized)
        #expect(state.accuracy == .reduced)
        await mock.send(.fix(sampleFix()))
        let fix = try await mock.location(LocationRequest())
        #expect(fix.accuracy == .reduced)
        #expect(fix.coordinate == sampleFix().coordinate)
    }

    @Test func askingForReducedNeverGetsFull() async throws {
        let mock = MockLocationService(authorization: undecided, promptAnswer: .allow(.full))
        #expect(try await mock.requestAuthorization(accuracy: .reduced).accuracy == .reduced)
    }

    @Test func denyIsRememberedAndNotPromptedAgain() async throws {
        let mock = MockLocationService(authorization: undecided, promptAnswer: .deny)
        #expect(try await mock.requestAuthorization(accuracy: .full).status == .denied)
        await mock.setPromptAnswer(.allow(.full))
        let again = try await mock.requestAuthorization(accuracy: .full)
        #expect(again.status == .denied)
        #expect(again.accuracy == nil)
        #expect(await mock.prompts == 1)
        #expect(await mock.authorizationRequests == 2)
        await mock.send(.fix(sampleFix()))
        await #expect(throws: LocationError.denied) { try await mock.location(LocationRequest()) }
    }

    @Test func unavailablePromptLeavesTheStatusUndecided() async throws {
        let mock = MockLocationService(authorization: undecided, promptAnswer: .unavailable)
        await #expect(throws: LocationError.promptUnavailable) {
            try await mock.requestAuthorization(accuracy: .full)
        }
        #expect(try await mock.authorizationStatus().status == .notDetermined)
        // It can be asked again once someone answers.
        await mock.setPromptAnswer(.allow(.full))
        #expect(try await mock.requestAuthorization(accuracy: .full).status == .authorized)
        #expect(await mock.prompts == 2)
    }

    @Test(arguments: [
        AuthorizationState(status: .restricted, decidedBy: .rule),
        AuthorizationState(status: .denied, decidedBy: .decision),
        AuthorizationState(status: .authorized, accuracy: .reduced, decidedBy: .rule),
    ])
    func decidedStatesAreReturnedWithoutPrompting(state: AuthorizationState) async throws {
        let mock = MockLocationService(authorization: state, promptAnswer: .allow(.full))
        #expect(try await mock.requestAuthorization(accuracy: .full) == state)
        #expect(await mock.prompts == 0)
        #expect(await mock.authorizationRequests == 1)
    }

    @Test func setAuthorizationReplacesTheState() async throws {
        let mock = MockLocationService()
        await mock.send(.fix(sampleFix()))
        #expect(try await mock.location(LocationRequest()).accuracy == .full)
        await mock.setAuthorization(.restricted)
        await #expect(throws: LocationError.restricted) { try await mock.location(LocationRequest()) }
        await mock.setAuthorization(.authorized, accuracy: .reduced)
        #expect(try await mock.location(LocationRequest()).accuracy == .reduced)
    }

    @Test func authorizationScenarioStepChangesTheState() async throws {
        let mock = MockLocationService(authorization: undecided)
        await mock.play(
            Scenario(steps: [.fix(ScriptedFix(latitude: 1, longitude: 2)), .authorization(.authorized, .reduced)]))
        let state = try await mock.authorizationStatus()
        #expect(state.status == .authorized)
        #expect(state.accuracy == .reduced)
        #expect(await mock.prompts == 0)
        let fix = try await mock.location(LocationRequest())
        #expect(fix.coordinate == Coordinate(latitude: 1, longitude: 2))
        #expect(fix.accuracy == .reduced)
        await mock.play(Scenario(steps: [.authorization(.denied, nil)]))
        await #expect(throws: LocationError.denied) { try await mock.location(LocationRequest()) }
        #expect(await mock.sourceStatus().fixes == 1)
    }
}

@Suite struct MockUpdatesTests {
    @Test func updatesAreRefusedWhenNotAuthorized() async {
        let mock = MockLocationService(authorization: undecided)
        var iterator = mock.updates(WatchOptions()).makeAsyncIterator()
        await #expect(throws: LocationError.notDetermined) { _ = try await iterator.next() }
    }

    @Test func updatesFlowAndEndWhenAuthorizationIsLost() async throws {
        let mock = MockLocationService(
            authorization: AuthorizationState(status: .authorized, accuracy: .reduced, decidedBy: .rule))
        let stream = mock.updates(WatchOptions())
        let firstRead = Task { try await readOne(stream) }
        #expect(await eventually { mock.hub.observerCount == 1 })
        let fix = sampleFix()
        await mock.send(.fix(fix))
        let first = try await firstRead.value
        #expect(first?.coordinate == fix.coordinate)
        #expect(first?.accuracy == .reduced)

        await mock.setAuthorization(.denied)
        await mock.send(.fix(sampleFix(latitude: 1)))
        await #expect(throws: LocationError.denied) { try await readOne(stream) }
        // The relay's observation of the hub ends with it.
        #expect(await eventually { mock.hub.observerCount == 0 })
    }
}

/// The mock filters a watch with the daemon's own per-watcher rule: what it
/// delivers for a sequence of fixes is what one ``WatchFilter`` passes (the
/// type `WatchFanOut` keeps per watcher).
@Suite struct MockWatchFilterTests {
    @Test func deliversWhatTheDaemonsFilterPasses() async throws {
        let options = WatchOptions(distanceFilter: 100, interval: .seconds(1))
        let start = ContinuousClock.now
        // (offset in ms, metres north): near/far, soon/late, measured from the last delivered.
        let script: [(Int, Double)] = [(0, 0), (500, 500), (1_200, 60), (1_400, 120), (1_600, 400), (3_000, 450)]
        let fixes = script.map { offset, north in
            LocationFix(
                coordinate: Coordinate(latitude: 52 + north / 111_195, longitude: 21), horizontalAccuracy: 5,
                mode: .twoD, source: .simulated, receivedAt: start + .milliseconds(offset))
        }
        var filter = WatchFilter(options)
        let expected = fixes.map { filter.pass($0) }
        #expect(expected == [true, false, false, true, false, true])

        let mock = MockLocationService()
        let stream = mock.updates(options)
        var iterator = stream.makeAsyncIterator()
        #expect(await eventually { mock.hub.observerCount == 1 })
        for (fix, passes) in zip(fixes, expected) {
            await mock.send(.fix(fix))
            if passes { #expect(try await iterator.next()?.coordinate == fix.coordinate) }
        }
        // Nothing else was let through: the next delivery is a fix sent now.
        let last = LocationFix(
            coordinate: Coordinate(latitude: 10, longitude: 21), horizontalAccuracy: 5, mode: .twoD,
            source: .simulated, receivedAt: start + .seconds(60))
        await mock.send(.fix(last))
        #expect(try await iterator.next()?.coordinate == last.coordinate)
    }
}

/// The next element of `stream` (a fresh iterator over the same stream).
private func readOne(_ stream: AsyncThrowingStream<LocationFix, any Error>) async throws -> LocationFix? {
    var iterator = stream.makeAsyncIterator()
    return try await iterator.next()
}
