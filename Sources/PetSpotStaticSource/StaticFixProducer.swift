import PetSpotFixHub
import PetSpotLocation

/// The static source's ticker: ticks its ``StaticPosition`` into a
/// ``FixedPosition`` once per ``period`` while anyone watches, like a
/// receiver that never moves, and sleeps in ``FixedPosition/untilListened()``
/// while nobody does (no CPU when idle).
///
/// One-shot requests never wait for it: the ``FixedPosition`` answers them
/// from the position itself, and a new watcher is shown the position at
/// once (``FixedPosition/fixForNewWatcher(at:)``). Watch options then apply
/// to the ticks as to any source's fixes: an `interval` of two seconds gets
/// every second tick, a `distanceFilter` only the first fix (it never moves).
public struct StaticFixProducer: Sendable {
    /// The configured position.
    public let position: StaticPosition
    /// Time between two ticks while watched.
    public let period: Duration
    /// Where the ticks are timed (the daemon: its event loops).
    public let sleeper: Sleeper

    public init(position: StaticPosition, period: Duration = .seconds(1), sleeper: Sleeper = .task) {
        self.position = position
        self.period = period
        self.sleeper = sleeper
    }

    /// The source for ``position``, for this ticker to feed. (`source.min_mode`
    /// does not apply: the position is what it is, and a request for a
    /// higher mode than it has is refused at once.)
    public func makePosition() -> FixedPosition { FixedPosition(position.fallback) }

    /// Ticks into `source` until the calling task is cancelled.
    public func run(reportingTo source: FixedPosition) async {
        let clock = ContinuousClock()
        var next = clock.now
        while !Task.isCancelled {
            await source.untilListened()
            // Ticks on a fixed grid (fix times a whole number of periods
            // apart, so an interval of N periods is met exactly): the next
            // grid point still ahead, skipping those missed while nobody
            // listened or the machine was busy.
            next = next.advanced(by: period)
            let behind = clock.now - next
            if behind > .zero { next = next.advanced(by: period * (behind / period).rounded(.up)) }
            guard (try? await sleeper.sleep(until: next)) != nil else { return }
            source.tick(position.fix(at: next))
        }
    }
}
