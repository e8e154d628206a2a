import PetSpotFixHub
import PetSpotLocation

/// Plays a ``Scenario`` into a ``LiveFixHub``: the daemon's `simulated` source
/// and the engine of ``MockLocationService``.
public struct ScenarioPlayer: FixProducer {
    /// The script.
    public let scenario: Scenario
    public let kind: FixSourceKind = .simulated
    /// Called for `authorization` steps (the mock changes its state; the
    /// daemon passes `nil` and ignores them).
    public let onAuthorization: (@Sendable (AuthorizationStatus, AccuracyAuthorization?) async -> Void)?

    public init(
        scenario: Scenario,
        onAuthorization: (@Sendable (AuthorizationStatus, AccuracyAuthorization?) async -> Void)? = nil
    ) {
        self.scenario = scenario
        self.onAuthorization = onAuthorization
    }

    /// Plays the steps until done (or forever when the scenario loops),
    /// stopping promptly when the task is cancelled.
    public func run(reportingTo hub: LiveFixHub) async {
        hub.receive(.connected(device: "simulated"))
        repeat {
            var paused = false
            for step in scenario.steps {
                if Task.isCancelled { return }
                switch step {
                case .fix(let fix):
                    hub.receive(.fix(fix.makeFix()))
                case .wait(let duration):
                    paused = paused || duration > .zero
                    guard await sleep(duration, on: hub.sleeper) else { return }
                case .path(let from, let to, let count, let interval, let template):
                    for index in 0..<count {
                        let fraction = count == 1 ? 1 : Double(index) / Double(count - 1)
                        var fix = template
                        fix.latitude = from.latitude + (to.latitude - from.latitude) * fraction
                        fix.longitude = from.longitude + (to.longitude - from.longitude) * fraction
                        hub.receive(.fix(fix.makeFix()))
                        if index < count - 1 {
                            paused = paused || interval > .zero
                            guard await sleep(interval, on: hub.sleeper) else { return }
                        }
                    }
                case .noFix(let duration):
                    hub.receive(.noFix)
                    paused = paused || duration > .zero
                    guard await sleep(duration, on: hub.sleeper) else { return }
                case .outage(let duration, let reason):
                    hub.receive(.disconnected(reason: reason))
                    paused = paused || duration > .zero
                    guard await sleep(duration, on: hub.sleeper) else { return }
                    hub.receive(.connected(device: "simulated"))
                case .authorization(let status, let accuracy):
                    await onAuthorization?(status, accuracy)
                }
            }
            // A looping script without any pause would spin a core: pace it.
            if scenario.loops, !paused { guard await sleep(.seconds(1), on: hub.sleeper) else { return } }
        } while scenario.loops && !Task.isCancelled
    }

    /// Sleeps on the hub's timers; `false` when cancelled.
    private func sleep(_ duration: Duration, on sleeper: Sleeper) async -> Bool {
        guard duration > .zero else { return !Task.isCancelled }
        do {
            try await sleeper.sleep(for: duration)
            return true
        } catch {
            return false
        }
    }
}
