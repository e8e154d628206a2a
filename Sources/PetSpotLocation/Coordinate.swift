/// A point on the WGS 84 ellipsoid in decimal degrees.
///
/// A coordinate is *valid* when both numbers are finite, the latitude is in
/// `[-90, 90]` and the longitude in `[-180, 180]` (bounds included). Sources
/// may produce invalid coordinates (a receiver's garbage, a NaN from libgps);
/// those are dropped and counted before any client sees them.
public struct Coordinate: Sendable, Hashable, Codable {
    /// Latitude in decimal degrees, positive north.
    public var latitude: Double
    /// Longitude in decimal degrees, positive east.
    public var longitude: Double

    /// Creates a coordinate without checking it; see ``isValid``.
    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }

    /// Creates a coordinate only when it is in range.
    ///
    /// - Throws: ``CoordinateError`` naming the offending component.
    public init(validatingLatitude latitude: Double, longitude: Double) throws(CoordinateError) {
        if let problem = Coordinate.problem(latitude: latitude, longitude: longitude) { throw problem }
        self.init(latitude: latitude, longitude: longitude)
    }

    /// Whether both components are finite and in range.
    public var isValid: Bool { Coordinate.problem(latitude: latitude, longitude: longitude) == nil }

    /// Whether `latitude` is finite and in `[-90, 90]`.
    public static func isValidLatitude(_ latitude: Double) -> Bool {
        latitude.isFinite && (-90.0...90.0).contains(latitude)
    }

    /// Whether `longitude` is finite and in `[-180, 180]`.
    public static func isValidLongitude(_ longitude: Double) -> Bool {
        longitude.isFinite && (-180.0...180.0).contains(longitude)
    }

    /// The first problem with a pair of components, or `nil` when valid.
    public static func problem(latitude: Double, longitude: Double) -> CoordinateError? {
        if !isValidLatitude(latitude) { return .latitudeOutOfRange(latitude) }
        if !isValidLongitude(longitude) { return .longitudeOutOfRange(longitude) }
        return nil
    }
}

/// Why a coordinate was refused.
public enum CoordinateError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Latitude not finite or outside `[-90, 90]`.
    case latitudeOutOfRange(Double)
    /// Longitude not finite or outside `[-180, 180]`.
    case longitudeOutOfRange(Double)

    public var description: String {
        switch self {
        case .latitudeOutOfRange(let value): "latitude \(value) is not a finite number in [-90, 90]"
        case .longitudeOutOfRange(let value): "longitude \(value) is not a finite number in [-180, 180]"
        }
    }
}
