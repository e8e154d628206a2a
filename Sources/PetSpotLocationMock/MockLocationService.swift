import PetSpotFixHub
import PetSpotLocation
import PetSpotSimulatedSource
import Synchronization

/// A scriptable ``LocationService`` for test suites: the test double of
/// ``LocationService`` (the daemon's own simulated source is
/// `PetSpotSimulatedSource`'s ``ScenarioPlayer``).
///
/// Positions come from a ``LiveFixHub`` fed by ``play(_:)`` (a ``Scenario``) or
/// by ``send(_:)``, and reach watchers the way the daemon's do: an
/// observation of the hub through one ``WatchFilter`` per watcher
/// (``PositionSource/updates(_:)``); authorization is a small state machine that tests
/// script: the current ``AuthorizationState`` and what the "user" answers
/// when ``requestAuthorization(accuracy:)`` prompts from `notDetermined`.
///
/// With reduced accuracy the mock marks fixes `reduced` but does not snap
/// them: snapping is the daemon's policy, not the source's.
public final class MockLocationService: LocationService, SourceStatusReporting {
    /// What the simulated user answers to a prompt.
    public enum PromptAnswer: Sendable, Equatable {
        /// Grants with this accuracy (remembered).
        case allow(AccuracyAuthorization)
        /// Denies (remembered).
        case deny
        /// An administrator steps in: `restricted`, which no later request changes.
        case restrict
        /// No agent answered: `promptUnavailable`, status unchanged.
        case unavailable
    }

    /// The hub the positions flow through.
    public let hub: LiveFixHub
    private let state: AuthorizationScript

    /// Creates a mock.
    /// - Parameters:
    ///   - authorization: the starting state (default authorized, full).
    ///   - promptAnswer: what a prompt from `notDetermined` yields.
    ///   - minimumMode: fixes below it are dropped, as the daemon does.
    public init(
        authorization: AuthorizationState = .alwaysAuthorized,
        promptAnswer: PromptAnswer = .allow(.full),
        minimumMode: FixMode = .twoD
    ) {
        self.hub = LiveFixHub(kind: .simulated, minimumMode: minimumMode)
        self.state = AuthorizationScript(current: authorization, answer: promptAnswer)
    }

    /// Plays `scenario` in the calling task until it ends or the task is cancelled.
    public func play(_ scenario: Scenario) async {
        let state = self.state
        await ScenarioPlayer(scenario: scenario) { status, accuracy in
            state.set(AuthorizationState(status: status, accuracy: accuracy, decidedBy: .decision))
        }.run(reportingTo: hub)
    }

    /// Feeds one source event directly.
    public func send(_ event: SourceEvent) async { hub.receive(event) }

    /// Replaces the authorization state.
    public func setAuthorization(_ status: AuthorizationStatus, accuracy: AccuracyAuthorization? = nil) async {
        state.set(AuthorizationState(status: status, accuracy: accuracy, decidedBy: .decision))
    }

    /// Changes what the next prompt yields.
    public func setPromptAnswer(_ answer: PromptAnswer) async { state.setAnswer(answer) }

    /// How many times ``requestAuthorization(accuracy:)`` was called.
    public var authorizationRequests: Int { get async { state.requests } }

    /// How many prompts were actually shown (requests made while `notDetermined`).
    public var prompts: Int { get async { state.prompts } }

    // MARK: LocationService

    public func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix {
        let accuracy = try state.requireAuthorized()
        var fix = try await hub.location(request)
        fix.accuracy = accuracy
        return fix
    }

    public func updates(_ options: WatchOptions) -> AsyncThrowingStream<LocationFix, any Error> {
        let hub = self.hub
        let state = self.state
        return AsyncThrowingStream(bufferingPolicy: .bufferingNewest(1)) { continuation in
            let relay = Task {
                do {
                    _ = try state.requireAuthorized()
                    for try await var fix in hub.updates(options) {
                        fix.accuracy = try state.requireAuthorized()
                        continuation.yield(fix)
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in relay.cancel() }
        }
    }

    public func authorizationStatus() async throws(LocationError) -> AuthorizationState { state.current }

    public func requestAuthorization(
        accuracy: AccuracyAuthorization
    ) async throws(LocationError)
        -> AuthorizationState
    {
        try state.request(accuracy: accuracy)
    }

    public func sourceStatus() async -> SourceStatus { hub.status() }
}

/// The mock's authorization state machine: a value under a `Mutex` (nothing
/// waits in it: a scripted prompt is answered at once).
final class AuthorizationScript: Sendable {
    private struct Script {
        var current: AuthorizationState
        var answer: MockLocationService.PromptAnswer
        var requests = 0
        var prompts = 0
    }

    private let script: Mutex<Script>

    init(current: AuthorizationState, answer: MockLocationService.PromptAnswer) {
        script = Mutex(Script(current: current, answer: answer))
    }

    var current: AuthorizationState { script.withLock { $0.current } }
    var requests: Int { script.withLock { $0.requests } }
    var prompts: Int { script.withLock { $0.prompts } }

    func set(_ state: AuthorizationState) { script.withLock { $0.current = state } }
    func setAnswer(_ answer: MockLocationService.PromptAnswer) { script.withLock { $0.answer = answer } }

    func requireAuthorized() throws(LocationError) -> AccuracyAuthorization {
        let current = self.current
        if let refusal = LocationError(refusing: current.status) { throw refusal }
        return current.accuracy ?? .full
    }

    func request(accuracy: AccuracyAuthorization) throws(LocationError) -> AuthorizationState {
        try script.withLock { (script) throws(LocationError) -> AuthorizationState in
            script.requests += 1
            guard script.current.status == .notDetermined else { return script.current }
            script.prompts += 1
            switch script.answer {
            case .allow(let granted):
                // The user may grant less than asked, never more.
                let effective: AccuracyAuthorization = (granted == .reduced || accuracy == .reduced) ? .reduced : .full
                script.current = AuthorizationState(status: .authorized, accuracy: effective, decidedBy: .decision)
            case .deny:
                script.current = AuthorizationState(status: .denied, decidedBy: .decision)
            case .restrict:
                script.current = AuthorizationState(status: .restricted, decidedBy: .rule)
            case .unavailable:
                throw .promptUnavailable
            }
            return script.current
        }
    }
}
