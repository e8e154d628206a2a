/// Where a fix came from.
public enum FixSourceKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A receiver read through gpsd.
    case gpsd
    /// A configured, fixed position (kiosks that never move).
    case `static`
    /// A scripted scenario (no hardware).
    case simulated
}

/// The dimension of a fix, as gpsd reports it.
public enum FixMode: Int, Sendable, Hashable, Codable, Comparable {
    /// Latitude and longitude only.
    case twoD = 2
    /// Latitude, longitude and altitude.
    case threeD = 3

    public static func < (lhs: FixMode, rhs: FixMode) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// One position report, as handed to clients.
///
/// Unknown values are `nil`; on the wire they are omitted. Freshness is
/// judged by ``receivedAt`` (the daemon's monotonic receipt time), never by
/// ``timestamp``: receiver clocks jump (gpsd's week-rollover heuristic moves
/// old dates 1024 weeks forward, receivers step backwards).
public struct LocationFix: Sendable, Equatable {
    /// The position.
    public var coordinate: Coordinate
    /// Altitude in metres above mean sea level, when the fix is 3D.
    public var altitude: Double?
    /// Horizontal error in metres (1-sigma, or gpsd's `eph`).
    public var horizontalAccuracy: Double?
    /// Vertical error in metres.
    public var verticalAccuracy: Double?
    /// Speed over ground in m/s.
    public var speed: Double?
    /// Course over ground in degrees from true north.
    public var course: Double?
    /// The receiver's time for this fix (may be wrong; see the type's doc).
    public var timestamp: UTCTimestamp?
    /// 2D or 3D.
    public var mode: FixMode
    /// The source that produced it.
    public var source: FixSourceKind
    /// When the daemon (or this process) received it, on the monotonic clock.
    public var receivedAt: ContinuousClock.Instant {
        get { MonotonicReference.instant.advanced(by: receivedSinceReference) }
        set { receivedSinceReference = MonotonicReference.instant.duration(to: newValue) }
    }
    /// ``receivedAt`` as stored: its distance from ``MonotonicReference/instant``.
    ///
    /// `ContinuousClock.Instant` is a resilient type of the standard library
    /// (its layout is known only at run time), so a struct that stores one is
    /// copied, compared and destroyed through runtime witnesses and metadata
    /// lookups, never as plain bytes. A fix is copied many times per watcher
    /// per fix (issue 40): stored as a `Duration` (frozen) it is plain data.
    private(set) var receivedSinceReference: Duration
    /// Whether the coordinate is exact or snapped for reduced accuracy.
    public var accuracy: AccuracyAuthorization

    /// Creates a fix. Nothing is validated here; see ``sanitized()``.
    public init(
        coordinate: Coordinate,
        altitude: Double? = nil,
        horizontalAccuracy: Double? = nil,
        verticalAccuracy: Double? = nil,
        speed: Double? = nil,
        course: Double? = nil,
        timestamp: UTCTimestamp? = nil,
        mode: FixMode,
        source: FixSourceKind,
        receivedAt: ContinuousClock.Instant = .now,
        accuracy: AccuracyAuthorization = .full
    ) {
        self.coordinate = coordinate
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.timestamp = timestamp
        self.mode = mode
        self.source = source
        self.receivedSinceReference = MonotonicReference.instant.duration(to: receivedAt)
        self.accuracy = accuracy
    }

    /// Seconds since receipt, measured at `now`.
    public func age(at now: ContinuousClock.Instant = .now) -> Double {
        max(0, elapsed(at: now).seconds)
    }

    /// Time since receipt at `now` (negative for a `now` before it).
    public func elapsed(at now: ContinuousClock.Instant) -> Duration {
        MonotonicReference.instant.duration(to: now) - receivedSinceReference
    }

    /// Time from `earlier`'s receipt to this fix's (what a watch's filter keeps of a fix it delivered).
    public func received(since earlier: DeliveredPosition) -> Duration {
        receivedSinceReference - earlier.receivedSinceReference
    }

    /// The fix with every non-finite or impossible optional value removed,
    /// or `nil` when the coordinate itself is invalid (such a fix must be
    /// dropped and counted, never returned).
    public func sanitized() -> LocationFix? {
        guard coordinate.isValid else { return nil }
        var fix = self
        fix.altitude = altitude.finite
        fix.horizontalAccuracy = horizontalAccuracy.finite.flatMap { $0 >= 0 ? $0 : nil }
        fix.verticalAccuracy = verticalAccuracy.finite.flatMap { $0 >= 0 ? $0 : nil }
        fix.speed = speed.finite.flatMap { $0 >= 0 ? $0 : nil }
        fix.course = course.finite.flatMap { (0.0...360.0).contains($0) ? $0 : nil }
        if mode == .twoD {
            fix.altitude = nil
            fix.verticalAccuracy = nil
        }
        return fix
    }
}

/// The instant ``LocationFix/receivedAt`` is stored from: the first time
/// this process asked for it.
enum MonotonicReference {
    static let instant = ContinuousClock.now
}

extension Optional where Wrapped == Double {
    /// The value when it is a finite number, else `nil`.
    @usableFromInline var finite: Double? {
        switch self {
        case .some(let value) where value.isFinite: value
        default: nil
        }
    }
}

extension Duration {
    /// The duration in seconds as a `Double`.
    public var seconds: Double {
        let parts = components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    /// A duration from fractional seconds; non-finite or negative input gives zero.
    public static func fromSeconds(_ seconds: Double) -> Duration {
        guard seconds.isFinite, seconds > 0 else { return .zero }
        return .nanoseconds(Int64((seconds * 1e9).rounded()))
    }
}
