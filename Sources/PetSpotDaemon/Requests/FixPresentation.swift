import PetSpotLocation
import PetSpotPolicy

/// How fixes are shown to a client with a given accuracy: as they are, or
/// reduced (SPEC §3). A value, so a watcher can keep the one its policy
/// granted and apply it to each fix without asking the policy again.
///
/// Here is what `location.get` and watches share; how a watcher's updates
/// are filtered under a presentation lives with the watches
/// (`Watch/FixPresentation+Watch.swift`).
public enum FixPresentation: Sendable, Hashable {
    /// The fix as the source gave it.
    case full
    /// Snapped to the centre of a grid cell of `cellMeters`, stripped of
    /// everything that narrows the position (``ReducedAccuracy/reduce(_:cellMeters:)``),
    /// and, for watches, at most one update per `updateInterval`.
    case reduced(cellMeters: Double, updateInterval: Duration = Policy.defaultReducedUpdateInterval)

    /// `fix` as this presentation shows it.
    public func apply(_ fix: LocationFix) -> LocationFix {
        switch self {
        case .full: fix
        case .reduced(let cellMeters, _): ReducedAccuracy.reduce(fix, cellMeters: cellMeters)
        }
    }

    /// `request` as it may be served under this presentation: a reduced
    /// client's `desiredAccuracy` is ignored, so when its answer comes cannot
    /// reveal the source's true accuracy (as CoreLocation does).
    public func serving(_ request: LocationRequest) -> LocationRequest {
        guard case .reduced = self else { return request }
        var request = request
        request.desiredAccuracy = nil
        return request
    }
}
