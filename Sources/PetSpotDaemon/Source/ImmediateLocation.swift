import PetSpotFixHub
import PetSpotLocation
import PetSpotStaticSource

/// A source that can tell, without waiting, what it would answer a request
/// with now: lets the daemon answer the common `location.get` right where
/// the line arrives (``Dispatcher/answerAtOnce(_:session:)``).
public protocol ImmediateLocationAnswering: Sendable {
    /// The fix ``LocationService/location(_:)`` would return at once, or
    /// `nil` when it would have to decide (wait, fallback, outage, refusal):
    /// then ask it.
    func immediateLocation(_ request: LocationRequest) -> LocationFix?
}

extension HubLocationService: ImmediateLocationAnswering {
    /// The cached fix when it answers `request` (``FixHub/cachedAnswer(_:at:)``).
    public func immediateLocation(_ request: LocationRequest) -> LocationFix? { hub.cachedAnswer(request) }
}

extension StaticLocationService: ImmediateLocationAnswering {
    /// The configured position, stamped now, unless `request` needs a higher mode.
    public func immediateLocation(_ request: LocationRequest) -> LocationFix? {
        let fix = position.fix()
        if let minMode = request.minMode, fix.mode < minMode { return nil }
        return fix
    }
}
