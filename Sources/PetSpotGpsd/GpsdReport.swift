import PetSpotLocation

/// One TPV report as libgps reads it: plain numbers, NaN where gpsd sent
/// nothing (libgps's convention), before any checking.
///
/// Kept separate from `gps_data_t` so the mapping to a ``LocationFix`` is a
/// pure function that tests drive without libgps.
public struct GpsdReport: Sendable {
    /// `fix.mode`: 0 not seen, 1 no fix, 2 2D, 3 3D.
    public var mode: Int
    public var latitude: Double
    public var longitude: Double
    /// Height above the ellipsoid (m).
    public var altitudeHAE: Double
    /// Height above mean sea level (m).
    public var altitudeMSL: Double
    /// Geoid separation (m), to derive MSL from HAE.
    public var geoidSeparation: Double
    /// Horizontal error estimate (m).
    public var eph: Double
    /// Longitude error estimate (m).
    public var epx: Double
    /// Latitude error estimate (m).
    public var epy: Double
    /// Vertical error estimate (m).
    public var epv: Double
    /// Speed over ground (m/s).
    public var speed: Double
    /// Course over ground (degrees from true north).
    public var track: Double
    /// Receiver time, seconds since the epoch (0 when gpsd sent none).
    public var timeSeconds: Int
    /// Nanoseconds of the receiver time.
    public var timeNanoseconds: Int
    /// The device path gpsd named (`""` when none).
    public var device: String

    /// Creates a report; every number defaults to "not sent".
    public init(
        mode: Int, latitude: Double = .nan, longitude: Double = .nan, altitudeHAE: Double = .nan,
        altitudeMSL: Double = .nan, geoidSeparation: Double = .nan, eph: Double = .nan, epx: Double = .nan,
        epy: Double = .nan, epv: Double = .nan, speed: Double = .nan, track: Double = .nan,
        timeSeconds: Int = 0, timeNanoseconds: Int = 0, device: String = ""
    ) {
        self.mode = mode
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeHAE = altitudeHAE
        self.altitudeMSL = altitudeMSL
        self.geoidSeparation = geoidSeparation
        self.eph = eph
        self.epx = epx
        self.epy = epy
        self.epv = epv
        self.speed = speed
        self.track = track
        self.timeSeconds = timeSeconds
        self.timeNanoseconds = timeNanoseconds
        self.device = device
    }

    /// What a report amounts to.
    public enum Outcome: Sendable, Equatable {
        /// A position (not yet checked against `min_mode`; the hub does that and counts).
        case fix(LocationFix)
        /// gpsd is talking but the receiver has no position (mode 0 or 1).
        case noFix
        /// Unusable: the reason says why. Counted as rejected.
        case rejected(String)
    }

    /// Maps the report to a fix, checking every number with `isFinite`.
    ///
    /// Latitude and longitude must be finite and in range, else the report is
    /// rejected. Optional values that are not finite (or impossible, such as
    /// a negative error) become `nil`. Altitude and vertical accuracy only
    /// for 3D fixes. Horizontal accuracy is `eph`, else derived from `epx`
    /// and `epy`. The receiver time becomes ``LocationFix/timestamp`` but
    /// freshness uses `receivedAt` alone.
    ///
    /// - Parameter receivedAt: when the report arrived (monotonic clock).
    public func outcome(receivedAt: ContinuousClock.Instant) -> Outcome {
        let fixMode: FixMode
        switch mode {
        case 0, 1: return .noFix
        case 2: fixMode = .twoD
        case 3: fixMode = .threeD
        default: return .rejected("unknown fix mode \(mode)")
        }
        if let problem = Coordinate.problem(latitude: latitude, longitude: longitude) {
            return .rejected(problem.description)
        }
        var fix = LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: longitude),
            horizontalAccuracy: horizontalAccuracy,
            speed: Self.nonNegative(speed),
            course: track.isFinite && track >= 0 && track < 360 ? track : nil,
            timestamp: timestamp,
            mode: fixMode,
            source: .gpsd,
            receivedAt: receivedAt
        )
        if fixMode == .threeD {
            fix.altitude = altitude
            fix.verticalAccuracy = Self.nonNegative(epv)
        }
        return .fix(fix)
    }

    /// `eph`, else the root sum of squares of `epx` and `epy`, else the one of them that is known.
    var horizontalAccuracy: Double? {
        if let eph = Self.nonNegative(eph) { return eph }
        switch (Self.nonNegative(epx), Self.nonNegative(epy)) {
        case (let x?, let y?):
            let combined = (x * x + y * y).squareRoot()
            return combined.isFinite ? combined : nil
        case (let x?, nil): return x
        case (nil, let y?): return y
        case (nil, nil): return nil
        }
    }

    /// MSL altitude, else HAE minus the geoid separation; `nil` when neither is known.
    var altitude: Double? {
        if altitudeMSL.isFinite { return altitudeMSL }
        let derived = altitudeHAE - geoidSeparation
        return derived.isFinite ? derived : nil
    }

    /// The receiver time, when gpsd sent a plausible one.
    var timestamp: UTCTimestamp? {
        guard timeSeconds > 0, (0..<1_000_000_000).contains(timeNanoseconds) else { return nil }
        return UTCTimestamp(secondsSince1970: Double(timeSeconds) + Double(timeNanoseconds) / 1e9)
    }

    private static func nonNegative(_ value: Double) -> Double? {
        value.isFinite && value >= 0 ? value : nil
    }
}
