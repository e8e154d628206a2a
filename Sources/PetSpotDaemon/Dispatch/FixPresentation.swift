import PetSpotLocation
import PetSpotPolicy

/// How fixes are shown to a client with a given accuracy: as they are, or
/// snapped to the reduced-accuracy grid. A value, so a watcher can keep the
/// one its policy granted and apply it to each fix without asking the
/// policy again.
public enum FixPresentation: Sendable, Hashable {
    /// The fix as the source gave it.
    case full
    /// Snapped to the centre of a grid cell of `cellMeters` (SPEC §3).
    case reduced(cellMeters: Double)

    /// `fix` as this presentation shows it.
    public func apply(_ fix: LocationFix) -> LocationFix {
        switch self {
        case .full: fix
        case .reduced(let cellMeters): ReducedAccuracy.reduce(fix, cellMeters: cellMeters)
        }
    }
}
