import PetSpotLocation

/// A position that never moves (the static source): every request is
/// answered from it at once, or refused at once when it asks for a higher
/// mode than the position has; nothing ever waits, so there is no hub, no
/// actor and no task here.
///
/// Watchers are shown the position when they join (``fixForNewWatcher(at:)``)
/// and then get the fixes its ticker hands in (``tick(_:)``; the static
/// source's ticks once a second while anyone observes, and rests in
/// ``untilListened()`` while nobody does). A `Sendable` class: its
/// observers and its count of ticks sit behind one lock no work waits under.
public final class FixedPosition: PositionSource {
    /// The kind its fixes are marked with.
    public let kind: FixSourceKind
    private let position: Fallback
    /// Its observers, and its count of ticks (``FixObservers/published``).
    private let observers = FixObservers()

    /// Creates the source for `position`; it is up from the start.
    public init(_ position: Fallback) {
        self.kind = position.kind
        self.position = position
    }

    /// The position at `now`, when `request` accepts its mode.
    public func cachedAnswer(_ request: LocationRequest, at now: ContinuousClock.Instant) -> LocationFix? {
        let fix = position.makeFix(now)
        return request.accepts(fix) ? fix : nil
    }

    /// The position; ``LocationError/locationUnknown`` at once when the
    /// request asks for more than it has (nothing better will ever come).
    public func location(_ request: LocationRequest) async throws(LocationError) -> LocationFix {
        guard let fix = cachedAnswer(request, at: .now) else { throw .locationUnknown }
        return fix
    }

    /// Calls `observer` with every tick (see ``PositionSource/observe(_:)``).
    public func observe(_ observer: @escaping @Sendable (LocationFix) -> Void) -> @Sendable () -> Void {
        observers.observe(observer)
    }

    /// The position: a watcher joining is shown it at once.
    public func fixForNewWatcher(at now: ContinuousClock.Instant) -> LocationFix? { position.makeFix(now) }

    /// Always connected, as fresh as any answer it gives; `fixes` counts the ticks.
    public func status() async -> SourceStatus {
        SourceStatus(kind: kind, connected: true, lastFixAge: 0, fixes: observers.published)
    }

    /// The position's mode.
    public var newestMode: FixMode? { position.makeFix(.now).mode }

    /// Hands `fix` (the position at a tick) to the observers, counted in ``status()``.
    public func tick(_ fix: LocationFix) {
        observers.publish(fix)
    }

    /// Returns once someone observes, at once if someone does now, or when
    /// the calling task is cancelled: the ticker waits here, so an
    /// unwatched position costs no CPU.
    public func untilListened() async { await observers.untilListened() }

    /// Whether anyone observes now (see ``untilListened()``).
    public var isListened: Bool { observers.isListened }
}
