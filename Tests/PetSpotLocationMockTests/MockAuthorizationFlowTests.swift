import PetSpotFixHub
import PetSpotLocation
import PetSpotLocationMock
import PetSpotSimulatedSource
import Testing

/// Scripted authorization flows, so client code can be tested against every path.
@Suite struct MockAuthorizationFlowTests {
    static let notDetermined = AuthorizationState(status: .notDetermined, decidedBy: .default)
    static let fix = LocationFix(
        coordinate: Coordinate(latitude: 52.2297, longitude: 21.0122), horizontalAccuracy: 8, mode: .twoD,
        source: .simulated)

    @Test(arguments: [
        (
            MockLocationService.PromptAnswer.allow(.full), AuthorizationStatus.authorized,
            AccuracyAuthorization?.some(.full)
        ),
        (.allow(.reduced), .authorized, .reduced),
        (.deny, .denied, nil),
        (.restrict, .restricted, nil),
    ])
    func notDeterminedThenPromptThen(
        _ answer: MockLocationService.PromptAnswer, _ status: AuthorizationStatus, _ accuracy: AccuracyAuthorization?
    ) async throws {
        let mock = MockLocationService(authorization: Self.notDetermined, promptAnswer: answer)
        await mock.send(.fix(Self.fix))
        await #expect(throws: LocationError.notDetermined) { try await mock.location(LocationRequest()) }
        let state = try await mock.requestAuthorization(accuracy: .full)
        #expect(state.status == status)
        #expect(state.accuracy == accuracy)
        // Asking again never prompts again.
        _ = try await mock.requestAuthorization(accuracy: .full)
        #expect(await mock.prompts == 1)
        #expect(await mock.authorizationRequests == 2)
        if let refusal = LocationError(refusing: status) {
            await #expect(throws: refusal) { try await mock.location(LocationRequest()) }
        } else {
            #expect(try await mock.location(LocationRequest()).accuracy == accuracy)
        }
    }

    @Test func anUnansweredPromptLeavesTheClientNotDetermined() async throws {
        let mock = MockLocationService(authorization: Self.notDetermined, promptAnswer: .unavailable)
        await #expect(throws: LocationError.promptUnavailable) { try await mock.requestAuthorization(accuracy: .full) }
        #expect(try await mock.authorizationStatus().status == .notDetermined)
        await mock.setPromptAnswer(.allow(.full))
        #expect(try await mock.requestAuthorization(accuracy: .reduced).accuracy == .reduced)
    }

    @Test func aScenarioStepCanTakeAuthorizationAway() async throws {
        let mock = MockLocationService()
        await mock.send(.fix(Self.fix))
        #expect(try await mock.location(LocationRequest()).accuracy == .full)
        await mock.play(Scenario(steps: [.authorization(.denied, nil)]))
        await #expect(throws: LocationError.denied) { try await mock.location(LocationRequest()) }
    }
}
