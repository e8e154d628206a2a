import FoundationEssentials
import Logging
import Metrics
import PetSpotKioskConfiguration
import PetSpotPhotoCleaning
import PetSpotReport
import Synchronization

/// Every open visit, in memory, with the idle reset (SPEC §7 "The kiosk station").
///
/// A visit ends, and everything of it is deleted (its state and its photo
/// draft directory), when the visitor submits or cancels, or after
/// ``idleReset`` without activity. A visit is opened only by the visitor's
/// first tap ("Report a found pet"), never by a page load. The store holds
/// at most ``maximumVisits``; opening one more ends the least recently
/// active visit that holds no input, and never one of a visitor who is
/// mid-report (``Visit/hasInput``).
///
/// A class over one `Mutex`: nothing waits in it. Under the lock only the
/// table of visits changes (what ends is decided there); deleting the
/// ended visits' draft directories, logging and the idle callback happen
/// after the lock is released (``Endings``).
public final class VisitStore: Sendable {
    /// Seconds of inactivity after which a visit is wiped.
    public let idleReset: Duration
    /// The most visits held at once (one kiosk browser needs one or two).
    public let maximumVisits: Int
    /// Where photo drafts go: `<base>/PetSpot/ReportFoundPet/<draft>/`.
    public let draftsBase: URL
    private let clock: KioskClock
    private let logger: Logger
    /// Called when the last open visit ends: the station is idle.
    private let whenIdle: @Sendable () -> Void
    private let visits = Mutex<[String: Visit]>([:])
    /// `petspot_kiosk_visits_total`: visits opened (one per person at the station).
    private let opened: Counter
    /// `petspot_kiosk_reports_submitted_total`: visits that ended with a report in the outbox.
    private let submitted: Counter

    /// Creates an empty store.
    /// - Parameters:
    ///   - idleReset: `kiosk.idle_reset`.
    ///   - draftsBase: the cache directory drafts are made under (as `XDG_CACHE_HOME`).
    ///   - maximumVisits: the bound on open visits.
    ///   - clock: the time source (a manual one in tests).
    public init(
        idleReset: Duration, draftsBase: URL, maximumVisits: Int = 16, clock: KioskClock = .continuous,
        logger: Logger = Logger(label: "petspot-kiosk"), metrics: any MetricsFactory = MetricsSystem.factory,
        whenIdle: @escaping @Sendable () -> Void = {}
    ) {
        self.whenIdle = whenIdle
        opened = Counter(label: "petspot_kiosk_visits_total", factory: metrics)
        submitted = Counter(label: "petspot_kiosk_reports_submitted_total", factory: metrics)
        self.idleReset = idleReset
        self.draftsBase = draftsBase
        self.maximumVisits = max(1, maximumVisits)
        self.clock = clock
        self.logger = logger
    }

    /// The directory all drafts live under.
    public var draftsRoot: URL {
        draftsBase.appendingPathComponent("PetSpot/ReportFoundPet", isDirectory: true)
    }

    /// Deletes drafts left by an earlier run (a crash or a power cut): no
    /// visit survives a restart, so none of them belongs to anyone.
    public func removeLeftoverDrafts() {
        let root = draftsRoot
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        let held = visits.withLock { Set($0.values.map(\.drafts.directory.lastPathComponent)) }
        for name in names where !held.contains(name) {
            try? FileManager.default.removeItem(at: root.appendingPathComponent(name))
        }
        if !names.isEmpty { logger.info("removed \(names.count) photo draft(s) left by an earlier run") }
    }

    /// The visit with cookie value `id` if it is still open, after wiping it when it idled out.
    public func visit(_ id: String?) -> Visit? {
        guard let id else { return nil }
        let now = clock.now()
        var endings = Endings()
        let visit = visits.withLock { visits in held(id, at: now, in: &visits, endings: &endings) }
        settle(endings)
        return visit
    }

    /// Opens a new visit in `language`.
    ///
    /// When the store is full, idle visits are ended first, then the least
    /// recently active visit without input. A visitor who is mid-report is
    /// never ended for another: when every held visit has input, nothing
    /// is opened.
    /// - Returns: the visit, or `nil` when the store is full of visits with input.
    public func open(language: KioskSettings.Language) -> Visit? {
        let fresh = newVisit(language: language)
        var endings = Endings()
        let visit = visits.withLock { visits in make(fresh, in: &visits, endings: &endings) }
        settle(endings)
        guard let visit else { return nil }
        opened.increment()
        return visit
    }

    /// Changes the visit `id` with `body` (when it is still open) and returns the result.
    ///
    /// `body` runs under the store's lock: it changes the visit in memory and does no I/O.
    /// - Parameter touch: whether this counts as activity (restarts the idle time).
    @discardableResult
    public func update<Result: Sendable, Failure: Error>(
        _ id: String, touch: Bool = true, _ body: (inout Visit) throws(Failure) -> Result
    ) throws(Failure) -> Result? {
        let now = clock.now()
        var endings = Endings()
        defer { settle(endings) }
        return try visits.withLock { (visits) throws(Failure) -> Result? in
            guard var visit = held(id, at: now, in: &visits, endings: &endings) else { return nil }
            if touch { visit.lastActivity = now }
            let result = try body(&visit)
            visits[id] = visit
            return result
        }
    }

    /// Restarts the idle time of visit `id`. - Returns: whether it is open.
    @discardableResult
    public func touch(_ id: String) -> Bool { update(id) { _ in true } ?? false }

    /// Ends visit `id`: forgets it and deletes its photo draft.
    public func end(_ id: String, reason: String) {
        var endings = Endings()
        visits.withLock { endings.end(id, reason: reason, in: &$0) }
        settle(endings)
    }

    /// Ends every visit that has idled out. - Returns: how many ended.
    @discardableResult
    public func sweep() -> Int {
        let now = clock.now()
        var endings = Endings()
        visits.withLock { sweep(at: now, in: &$0, endings: &endings) }
        settle(endings)
        return endings.ended.count
    }

    /// How long visit `id` has left before the idle reset, or `nil` when it is not open.
    public func remaining(_ id: String) -> Duration? {
        guard let lastActivity = visits.withLock({ $0[id]?.lastActivity }) else { return nil }
        return max(.zero, lastActivity + idleReset - clock.now())
    }

    /// The number of open visits.
    public var count: Int { visits.withLock { $0.count } }

    /// Ends visit `id` (deleting its draft) after a submit, and opens one
    /// that holds only `reference` for the thank-you page, in the visitor's
    /// `language`. It holds no input: the welcome page ends it, and the next
    /// person's visit starts at their own tap.
    public func finish(_ id: String, language: KioskSettings.Language, reference: String) -> Visit? {
        var fresh = newVisit(language: language)
        fresh.submittedReference = reference
        var endings = Endings()
        let visit = visits.withLock { visits in
            endings.end(id, reason: "submitted", in: &visits)
            return make(fresh, in: &visits, endings: &endings)
        }
        settle(endings)
        submitted.increment()
        return visit
    }

    // MARK: Under the lock

    /// What ending visits under the lock leaves to do after it: their drafts to delete, the idle callback.
    private struct Endings {
        /// The visits ended, with why.
        var ended: [(visit: Visit, reason: String)] = []
        /// Whether an end left the store empty (the station went idle, if only for a moment).
        var idle = false
        /// The visits held when one was not opened because every one of them has input.
        var full: Int?

        /// Forgets visit `id` (nothing when it is not open).
        mutating func end(_ id: String, reason: String, in visits: inout [String: Visit]) {
            guard let visit = visits.removeValue(forKey: id) else { return }
            ended.append((visit, reason))
            if visits.isEmpty { idle = true }
        }
    }

    /// Visit `id` when open and not idled out; an idled-out one is ended.
    private func held(
        _ id: String, at now: ContinuousClock.Instant, in visits: inout [String: Visit], endings: inout Endings
    ) -> Visit? {
        guard let visit = visits[id] else { return nil }
        guard now - visit.lastActivity < idleReset else {
            endings.end(id, reason: "idle", in: &visits)
            return nil
        }
        return visit
    }

    private func sweep(at now: ContinuousClock.Instant, in visits: inout [String: Visit], endings: inout Endings) {
        let expired = visits.values.filter { now - $0.lastActivity >= idleReset }.map(\.id)
        for id in expired { endings.end(id, reason: "idle", in: &visits) }
    }

    /// Holds `fresh` after making room (idle visits first, then the least recently active one without
    /// input). - Returns: `fresh`, or `nil` when every held visit has input.
    private func make(_ fresh: Visit, in visits: inout [String: Visit], endings: inout Endings) -> Visit? {
        if visits.count >= maximumVisits { sweep(at: clock.now(), in: &visits, endings: &endings) }
        while visits.count >= maximumVisits {
            guard
                let oldest = visits.values.filter({ !$0.hasInput }).min(by: { $0.lastActivity < $1.lastActivity })
            else {
                endings.full = visits.count
                return nil
            }
            endings.end(oldest.id, reason: "too many visits", in: &visits)
        }
        visits[fresh.id] = fresh
        return fresh
    }

    // MARK: After the lock

    /// A visit not yet held (its tokens and draft place made outside the lock; nothing is written).
    private func newVisit(language: KioskSettings.Language) -> Visit {
        let drafts = PhotoDraftCache(
            draftID: UUID(), environment: ["XDG_CACHE_HOME": draftsBase.path], maximumBytes: KioskLimits.photoBytes)
        return Visit(id: Token.make(), csrfToken: Token.make(), language: language, drafts: drafts, now: clock.now())
    }

    /// Deletes the drafts of the visits that ended, logs, and says when the station went idle.
    private func settle(_ endings: Endings) {
        if let full = endings.full { logger.warning("a visit was not opened: \(full) visits are mid-report") }
        for (visit, reason) in endings.ended {
            do {
                try visit.drafts.clear()
            } catch {
                logger.error("cannot delete a photo draft: \(error)")
            }
            logger.info("visit ended (\(reason))")
        }
        if endings.idle { whenIdle() }
    }
}

/// Bounds on what a visitor can send.
public enum KioskLimits {
    /// The largest photo accepted: 10 MiB (seed 004: "up to 10 MB").
    public static let photoBytes = 10 << 20
    /// The largest photo upload request (the photo plus the form's other parts).
    public static let uploadBytes = photoBytes + (64 << 10)
    /// The largest other form.
    public static let formBytes = 64 << 10
    /// The most connections served at once (``StationPeers``): a kiosk
    /// browser opens a handful. Far below the unit's `LimitNOFILE`.
    public static let connections = 64
    /// The listen queue's length (the kernel caps it at `net.core.somaxconn`, 4096 by default).
    public static let listenBacklog = 4096
    /// The most photo uploads read at once (``FormMiddleware``), one per
    /// visit: their bodies are held in memory, at most ``uploadBytes`` each
    /// (so at most about 60 MiB in all).
    public static let concurrentUploads = 6
    /// How much of an over-large upload is read and thrown away so that the
    /// browser sees the answer; past this the connection is closed.
    public static let drainBytes = 64 << 20
}

/// Unguessable tokens (visit ids, CSRF tokens).
enum Token {
    /// 32 bytes from the system's CSPRNG (`getrandom`), base64url without padding.
    static func make() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }

    /// Compares in time independent of where the strings differ.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for index in x.indices { difference |= x[index] ^ y[index] }
        return difference == 0
    }
}

/// The kiosk's monotonic time source.
public struct KioskClock: Sendable {
    /// Now.
    public var now: @Sendable () -> ContinuousClock.Instant

    public init(now: @escaping @Sendable () -> ContinuousClock.Instant) { self.now = now }

    /// The real clock.
    public static let continuous = KioskClock { ContinuousClock.now }
}
