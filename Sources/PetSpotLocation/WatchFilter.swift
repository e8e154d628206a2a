/// One watcher's filter: its ``WatchOptions`` and the last fix it was given.
///
/// The one implementation of the per-watcher rule, used wherever fixes are
/// handed to watchers: the daemon's fan-out (`WatchFanOut`, with a reduced
/// watch's minimum interval), the adapter every source offers
/// (`PositionSource.updates(_:)`) and so the test double
/// (`MockLocationService`).
public struct WatchFilter: Sendable {
    /// What the watcher asked for.
    public let options: WatchOptions
    /// The last fix the watcher was given (as it was shown it); `nil` before the first.
    public private(set) var lastDelivered: LocationFix?

    public init(_ options: WatchOptions, lastDelivered: LocationFix? = nil) {
        self.options = options
        self.lastDelivered = lastDelivered
    }

    /// Whether `fix` goes to the watcher now (``WatchOptions/shouldDeliver(_:after:)``
    /// after ``lastDelivered``), with at least `minimumInterval` between two
    /// fixes whatever `interval` the watcher asked for (a reduced watch's
    /// update interval); changes nothing.
    public func admits(_ fix: LocationFix, minimumInterval: Duration? = nil) -> Bool {
        guard let minimumInterval else { return options.shouldDeliver(fix, after: lastDelivered) }
        var throttled = options
        throttled.interval = max(options.interval ?? .zero, minimumInterval)
        return throttled.shouldDeliver(fix, after: lastDelivered)
    }

    /// ``admits(_:minimumInterval:)``, and when it does, records `fix` as delivered.
    public mutating func pass(_ fix: LocationFix, minimumInterval: Duration? = nil) -> Bool {
        guard admits(fix, minimumInterval: minimumInterval) else { return false }
        lastDelivered = fix
        return true
    }
}
