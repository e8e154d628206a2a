import Synchronization

/// Runs `then` once, `after` from now, on a thread of the caller's choice
/// (the daemon: an event loop's scheduled task; the kiosk: a task that
/// sleeps). Tests pass one that keeps the work and runs it when they say.
public typealias PageReleaseTimer = @Sendable (_ after: Duration, _ then: @escaping @Sendable () -> Void) -> Void

/// ``StartupPages/release(smapsPath:)`` for events a user can repeat (the
/// kiosk's last visit ending): at most once per ``interval``. Each release
/// reads the memory map and drops code pages that then fault back in, so a
/// visitor tapping Start and Cancel in a loop must not make the program do
/// it on every tap.
///
/// An ask inside the interval is not dropped: one release is kept for the
/// interval's end (the trailing edge), so the pages the last visits touched
/// are given back however closely they followed each other. At most one
/// release is pending, and releases stay at least ``interval`` apart. The
/// kept release does not look whether a new visit has begun meanwhile: if
/// one has, the pages it uses come back with minor faults (they stay in
/// the page cache), about as costly as the release itself.
public final class ThrottledPageRelease: Sendable {
    /// The least time between two releases.
    public let interval: Duration
    private let now: @Sendable () -> ContinuousClock.Instant
    private let release: @Sendable () -> StartupPages.Released
    private let timer: PageReleaseTimer
    private let released: @Sendable (StartupPages.Released) -> Void
    private let state = Mutex(State())

    private struct State {
        var last: ContinuousClock.Instant?
        /// A release is kept for the end of the interval.
        var pending = false
    }

    /// - Parameters:
    ///   - interval: the least time between two releases.
    ///   - now: the clock (tests pass their own).
    ///   - timer: runs a kept release at the interval's end (tests pass their own).
    ///   - release: what a release does (tests pass their own).
    ///   - released: told of every release that a timer ran (to log it).
    public init(
        every interval: Duration, now: @escaping @Sendable () -> ContinuousClock.Instant = { .now },
        timer: @escaping PageReleaseTimer = ThrottledPageRelease.sleepingTimer,
        release: @escaping @Sendable () -> StartupPages.Released = { StartupPages.release() },
        released: @escaping @Sendable (StartupPages.Released) -> Void = { _ in }
    ) {
        self.interval = interval
        self.now = now
        self.timer = timer
        self.release = release
        self.released = released
    }

    /// A timer that sleeps in a task of its own.
    public static let sleepingTimer: PageReleaseTimer = { delay, then in
        Task {
            try? await Task.sleep(for: delay)
            then()
        }
    }

    /// Releases, unless the last release was less than ``interval`` ago;
    /// then one release is kept for the end of the interval.
    /// - Returns: what was released now, or `nil` when it was too soon.
    @discardableResult
    public func releaseIfDue() -> StartupPages.Released? {
        enum Decision {
            case now
            case later(Duration)
            case alreadyKept
        }
        let decision = state.withLock { state -> Decision in
            let now = now()
            if state.pending { return .alreadyKept }
            guard let last = state.last, now - last < interval else {
                state.last = now
                return .now
            }
            state.pending = true
            return .later(last + interval - now)
        }
        switch decision {
        case .now: return release()
        case .alreadyKept: return nil
        case .later(let delay):
            timer(delay) { [self] in
                state.withLock { state in
                    state.pending = false
                    state.last = now()
                }
                released(release())
            }
            return nil
        }
    }
}

/// ``StartupPages/release(smapsPath:)`` once requests stop: the daemon
/// marks every line a client sends (``noteActivity()``), and the pages
/// that serving touched (the request path's code, the audit writer's, the
/// policy's) are given back, as start-up's are, once a whole ``quiet``
/// period has passed without one: between one and two ``quiet`` periods
/// after the last line (the timer looks once per period, and the period in
/// which a line came is never the one that releases).
///
/// Cost: ``noteActivity()`` is two loads when a timer is already armed and
/// a line already marked this period (every request but the first of a
/// period), with no write to shared memory; the first of a period stores
/// one flag. The timer fires once per ``quiet`` while requests keep
/// coming, and twice after the last one; with no request at all it is
/// never armed, so an idle daemon has no wake-up of its own.
///
/// Every flag operation is sequentially consistent: ``noteActivity()``
/// stores `active` then loads `armed`, the timer stores `armed` then loads
/// `active`, and only a single total order guarantees that at least one of
/// the two sees the other's store, so a line that comes while the timer
/// disarms is never left without a timer.
public final class QuietPageRelease: Sendable {
    /// How long without a request before the release.
    public let quiet: Duration
    private let timer: PageReleaseTimer
    private let release: @Sendable () -> StartupPages.Released
    private let released: @Sendable (StartupPages.Released) -> Void
    /// A request came since the timer last looked.
    private let active = Atomic<Bool>(false)
    /// A timer is pending.
    private let armed = Atomic<Bool>(false)

    /// - Parameters:
    ///   - quiet: how long without a request before the release.
    ///   - timer: where the quiet is waited out (the daemon: an event loop).
    ///   - release: what a release does (tests pass their own).
    ///   - released: told of every release (to log it).
    public init(
        after quiet: Duration, timer: @escaping PageReleaseTimer,
        release: @escaping @Sendable () -> StartupPages.Released = { StartupPages.release() },
        released: @escaping @Sendable (StartupPages.Released) -> Void = { _ in }
    ) {
        self.quiet = quiet
        self.timer = timer
        self.release = release
        self.released = released
    }

    /// A client asked something: the release waits for a whole ``quiet``
    /// period without a line after this one.
    public func noteActivity() {
        if !active.load(ordering: .sequentiallyConsistent) { active.store(true, ordering: .sequentiallyConsistent) }
        if !armed.load(ordering: .sequentiallyConsistent) { armIfIdle() }
    }

    private func armIfIdle() {
        guard armed.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
        else { return }
        timer(quiet) { [self] in fire() }
    }

    private func fire() {
        // A line since the timer last looked (the one that armed it counts):
        // wait another quiet period.
        if active.exchange(false, ordering: .sequentiallyConsistent) {
            timer(quiet) { [self] in fire() }
            return
        }
        armed.store(false, ordering: .sequentiallyConsistent)
        // A line that came between the look above and the disarming may
        // have found the timer still armed and left it: arm for it.
        if active.load(ordering: .sequentiallyConsistent) { armIfIdle() }
        released(release())
    }
}
