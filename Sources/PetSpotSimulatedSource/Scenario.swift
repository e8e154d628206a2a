import FoundationEssentials
import PetSpotLocation

/// A script for the simulated source and the mock: fixes, no-fix periods,
/// outages, delays and authorization changes, played in order.
///
/// The file format is JSON:
///
/// ```json
/// {
///   "loop": true,
///   "steps": [
///     {"fix": {"latitude": 52.2297, "longitude": 21.0122, "altitude": 110,
///              "horizontalAccuracy": 8, "verticalAccuracy": 12, "speed": 0,
///              "course": 0, "mode": 3}},
///     {"wait": 1.0},
///     {"path": {"from": {"latitude": 52.2297, "longitude": 21.0122},
///               "to": {"latitude": 52.2307, "longitude": 21.0142},
///               "count": 10, "interval": 0.5, "horizontalAccuracy": 5}},
///     {"noFix": 3.0},
///     {"outage": 2.0, "reason": "receiver unplugged"},
///     {"authorization": {"status": "authorized", "accuracy": "reduced"}}
///   ]
/// }
/// ```
///
/// - `fix`: one report. `latitude`/`longitude` required; `mode` 2 or 3 (default 3,
///   or 2 without altitude); everything else optional. Invalid coordinates are
///   allowed in a scenario on purpose: the daemon must drop and count them.
/// - `wait`: seconds to pause.
/// - `path`: `count` fixes evenly spaced from `from` to `to`, `interval` seconds apart.
/// - `noFix`: seconds during which the source is up but has no position.
/// - `outage`: seconds during which the source is down (`sourceUnavailable`).
/// - `authorization`: the mock's authorization changes (the daemon ignores it:
///   there, permission comes from the policy).
/// - `loop` (default false): start over after the last step; a scenario that
///   does not loop keeps its last state.
public struct Scenario: Sendable, Equatable {
    /// One scripted step.
    public enum Step: Sendable, Equatable {
        case fix(ScriptedFix)
        case wait(Duration)
        case path(from: Coordinate, to: Coordinate, count: Int, interval: Duration, template: ScriptedFix)
        case noFix(Duration)
        case outage(Duration, reason: String)
        case authorization(AuthorizationStatus, AccuracyAuthorization?)
    }

    /// The steps, in order.
    public var steps: [Step]
    /// Whether to start over after the last step.
    public var loops: Bool

    public init(steps: [Step], loops: Bool = false) {
        self.steps = steps
        self.loops = loops
    }

    /// Whether any step produces a fix at all (a scenario without one can
    /// only ever answer `locationUnknown`).
    public var producesFixes: Bool {
        steps.contains { step in
            switch step {
            case .fix, .path: true
            default: false
            }
        }
    }
}

/// The contents of a scripted `fix`.
public struct ScriptedFix: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double
    public var altitude: Double?
    public var horizontalAccuracy: Double?
    public var verticalAccuracy: Double?
    public var speed: Double?
    public var course: Double?
    public var mode: FixMode?
    /// Receiver time; when absent the fix is stamped with the wall clock.
    public var timestamp: UTCTimestamp?

    public init(
        latitude: Double, longitude: Double, altitude: Double? = nil, horizontalAccuracy: Double? = nil,
        verticalAccuracy: Double? = nil, speed: Double? = nil, course: Double? = nil, mode: FixMode? = nil,
        timestamp: UTCTimestamp? = nil
    ) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speed = speed
        self.course = course
        self.mode = mode
        self.timestamp = timestamp
    }

    /// The fix this script line describes, received now.
    public func makeFix(source: FixSourceKind = .simulated, now: ContinuousClock.Instant = .now) -> LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: longitude),
            altitude: altitude,
            horizontalAccuracy: horizontalAccuracy,
            verticalAccuracy: verticalAccuracy,
            speed: speed,
            course: course,
            timestamp: timestamp ?? UTCTimestamp(secondsSince1970: Date().timeIntervalSince1970),
            mode: mode ?? (altitude == nil ? .twoD : .threeD),
            source: source,
            receivedAt: now
        )
    }
}
