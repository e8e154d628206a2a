/// One watcher's filter: its ``WatchOptions`` and the last fix it was given.
///
/// The one implementation of the per-watcher rule, used wherever fixes are
/// handed to watchers: the daemon's fan-out (`WatchFanOut`, with a reduced
/// watch's minimum interval), the adapter every source offers
/// (`PositionSource.updates(_:)`) and so the test double
/// (`MockLocationService`).
///
/// Of the last fix it keeps only what the rule reads (``DeliveredPosition``):
/// the daemon updates one filter a watcher a fix, and a whole fix is three
/// cache lines written each time (issue 40).
public struct WatchFilter: Sendable {
    /// What the watcher asked for.
    public let options: WatchOptions
    /// The last fix the watcher was given (as it was shown it); `nil` before the first.
    public private(set) var lastDelivered: DeliveredPosition?

    public init(_ options: WatchOptions, lastDelivered: LocationFix? = nil) {
        self.options = options
        self.lastDelivered = lastDelivered.map(DeliveredPosition.init)
    }

    /// Whether `fix` goes to the watcher now (the options' rule,
    /// after ``lastDelivered``), with at least `minimumInterval` between two
    /// fixes whatever `interval` the watcher asked for (a reduced watch's
    /// update interval); changes nothing.
    public func admits(_ fix: LocationFix, minimumInterval: Duration? = nil) -> Bool {
        guard let minimumInterval else { return options.shouldDeliver(fix, since: lastDelivered) }
        var throttled = options
        throttled.interval = max(options.interval ?? .zero, minimumInterval)
        return throttled.shouldDeliver(fix, since: lastDelivered)
    }

    /// ``admits(_:minimumInterval:)``, and when it does, records `fix` as delivered.
    public mutating func pass(_ fix: LocationFix, minimumInterval: Duration? = nil) -> Bool {
        guard admits(fix, minimumInterval: minimumInterval) else { return false }
        lastDelivered = DeliveredPosition(fix)
        return true
    }
}

/// What the per-watcher rule reads of the last fix a watcher was given:
/// where it was and when it was received.
public struct DeliveredPosition: Sendable, Equatable {
    /// The fix's position (as the watcher was shown it).
    public let coordinate: Coordinate
    /// ``LocationFix/receivedAt`` as the fix stores it (plain data: see there).
    let receivedSinceReference: Duration

    /// What the rule keeps of `fix`.
    public init(_ fix: LocationFix) {
        coordinate = fix.coordinate
        receivedSinceReference = fix.receivedSinceReference
    }

    /// When the fix was received, on the monotonic clock.
    public var receivedAt: ContinuousClock.Instant { MonotonicReference.instant.advanced(by: receivedSinceReference) }
}
