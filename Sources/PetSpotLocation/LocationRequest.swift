/// Options of a one-shot location request (`location.get`).
///
/// - `maxAge`: a cached fix received at most this long ago answers at once (default 5 s).
/// - `timeout`: how long to wait for a fix (default 10 s, at most 300 s).
/// - `minMode`: the least acceptable fix dimension (default: any the source accepts).
/// - `desiredAccuracy`: with it, the first fix whose horizontal accuracy is at most
///   this many metres answers; at timeout the best valid fix seen answers instead,
///   and `locationUnknown` only when none was seen.
public struct LocationRequest: Sendable, Hashable {
    /// Default `maxAge`.
    public static let defaultMaxAge: Duration = .seconds(5)
    /// Default `timeout`.
    public static let defaultTimeout: Duration = .seconds(10)
    /// Largest accepted `timeout`.
    public static let maximumTimeout: Duration = .seconds(300)

    public var maxAge: Duration
    public var timeout: Duration
    public var minMode: FixMode?
    public var desiredAccuracy: Double?

    public init(
        maxAge: Duration = LocationRequest.defaultMaxAge,
        timeout: Duration = LocationRequest.defaultTimeout,
        minMode: FixMode? = nil,
        desiredAccuracy: Double? = nil
    ) {
        self.maxAge = maxAge
        self.timeout = min(timeout, LocationRequest.maximumTimeout)
        self.minMode = minMode
        self.desiredAccuracy = desiredAccuracy
    }

    /// Whether `fix` is acceptable at all (mode).
    public func accepts(_ fix: LocationFix) -> Bool {
        guard let minMode else { return true }
        return fix.mode >= minMode
    }

    /// Whether `fix` meets `desiredAccuracy` (always true without one).
    public func isGoodEnough(_ fix: LocationFix) -> Bool {
        guard let desiredAccuracy else { return true }
        guard let accuracy = fix.horizontalAccuracy else { return false }
        return accuracy <= desiredAccuracy
    }

    /// Whether `fix` answers the request at once from a cache at `now`.
    public func isAnswerable(from fix: LocationFix, at now: ContinuousClock.Instant) -> Bool {
        accepts(fix) && isGoodEnough(fix) && fix.elapsed(at: now) <= maxAge
    }

    /// The better of two candidates for the timeout answer: the more accurate,
    /// a fix with a known accuracy beating one without, the newer on a tie.
    public static func better(_ lhs: LocationFix?, _ rhs: LocationFix) -> LocationFix {
        guard let lhs else { return rhs }
        switch (lhs.horizontalAccuracy, rhs.horizontalAccuracy) {
        case (nil, nil): return rhs
        case (nil, .some): return rhs
        case (.some, nil): return lhs
        case (.some(let a), .some(let b)): return b <= a ? rhs : lhs
        }
    }
}

/// Options of a continuous subscription (`location.watch`).
///
/// - `distanceFilter`: deliver only when the position moved at least this many
///   metres from the last delivered one.
/// - `interval`: deliver at most once per this many seconds (at least
///   ``minimumIntervalSeconds``: a smaller one would let one client spin the daemon).
public struct WatchOptions: Sendable, Hashable {
    /// The smallest `interval` a watch may ask for, in seconds.
    public static let minimumIntervalSeconds = 0.1

    public var distanceFilter: Double?
    public var interval: Duration?

    public init(distanceFilter: Double? = nil, interval: Duration? = nil) {
        self.distanceFilter = distanceFilter
        self.interval = interval
    }

    /// Whether `fix` should be delivered after `last` (the previously delivered one).
    public func shouldDeliver(_ fix: LocationFix, after last: LocationFix?) -> Bool {
        shouldDeliver(fix, since: last.map(DeliveredPosition.init))
    }

    /// Whether `fix` should be delivered after the previously delivered
    /// fix, of which the rule reads only `last`.
    public func shouldDeliver(_ fix: LocationFix, since last: DeliveredPosition?) -> Bool {
        guard let last else { return true }
        if let interval, fix.received(since: last) < interval { return false }
        if let distanceFilter,
            Geodesy.distance(from: last.coordinate, to: fix.coordinate) < distanceFilter
        {
            return false
        }
        return true
    }
}
