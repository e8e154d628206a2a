import PetSpotLocation

/// How a presentation shapes a watcher's updates (SPEC §3): a reduced watch
/// is judged on snapped positions only and throttled to its update interval.
extension FixPresentation {
    /// The least time between two updates of a watch shown fixes this way:
    /// a reduced watch's `updateInterval`, whatever `interval` it asked for;
    /// `nil` for a full one.
    public var minimumUpdateInterval: Duration? {
        switch self {
        case .full: nil
        case .reduced(_, let updateInterval): updateInterval
        }
    }

    /// Whether `shown` (a fix already passed through ``apply(_:)``) goes to a
    /// watcher with `options` whose last update was `last` (also as shown):
    /// the watcher's ``WatchFilter`` with ``minimumUpdateInterval``.
    ///
    /// A reduced watch is judged on snapped positions only: its
    /// `distanceFilter` compares cells, never true positions, and it gets at
    /// most one update per `updateInterval` whatever `interval` it asked for,
    /// so the timing of its updates cannot trace moves inside a cell.
    public func shouldDeliver(_ shown: LocationFix, after last: LocationFix?, options: WatchOptions) -> Bool {
        WatchFilter(options, lastDelivered: last).admits(shown, minimumInterval: minimumUpdateInterval)
    }
}
