import FoundationEssentials
import PetSpotFixHub
import PetSpotLocation

/// A fixed, configured position (`[source.static]`): kiosks that never move.
///
/// Its fixes are 2D unless an altitude is configured, and stamped with the
/// time of the answer. The coordinate is validated when the position is
/// made, like any fix.
public struct StaticPosition: Sendable, Equatable {
    public let coordinate: Coordinate
    public let horizontalAccuracy: Double?
    public let altitude: Double?

    /// Creates a static position.
    /// - Throws: ``CoordinateError`` when the coordinate is out of range.
    public init(
        latitude: Double, longitude: Double, horizontalAccuracy: Double? = nil, altitude: Double? = nil
    )
        throws(CoordinateError)
    {
        coordinate = try Coordinate(validatingLatitude: latitude, longitude: longitude)
        self.horizontalAccuracy = horizontalAccuracy
        self.altitude = altitude
    }

    /// The fix answered at `now`.
    public func fix(at now: ContinuousClock.Instant = .now) -> LocationFix {
        LocationFix(
            coordinate: coordinate,
            altitude: altitude,
            horizontalAccuracy: horizontalAccuracy,
            timestamp: UTCTimestamp(secondsSince1970: Date().timeIntervalSince1970),
            mode: altitude == nil ? .twoD : .threeD,
            source: .static,
            receivedAt: now
        )
    }

    /// This position as a hub's fallback.
    public var fallback: Fallback {
        let position = self
        return Fallback(kind: .static) { now in position.fix(at: now) }
    }
}
