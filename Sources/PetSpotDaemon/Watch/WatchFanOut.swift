import NIOCore
import PetSpotLocation
import PetSpotProtocol
import ServiceLifecycle
import PetSpotFixHub
import Synchronization

/// Fans a source's fixes out to every watcher: one job per event loop per
/// fix, which serializes the fix once per presentation and writes each of
/// its watchers' lines straight to their connections.
///
/// The obvious design, a task per watcher awaiting its own stream, costs a
/// task wake-up, a cross-thread hop and an async write per watcher per fix
/// (what that cost with a thousand watchers: docs/PERFORMANCE.md). Here
/// each loop's watchers live in a table only that loop touches (no locks),
/// keyed by connection and subscription, and a fix reaches them in one pass.
///
/// A watch here holds no task: its authorization re-check runs from this
/// service when the policy changes, and its end removes it. The fan-out
/// observes the hub only while it has watchers, so a source that makes
/// fixes only for listeners (the static position's ticker) rests while
/// nobody watches.
///
/// Per-watcher rules are the same wherever fixes reach watchers: the
/// watcher's ``WatchFilter`` decides (the one `MockLocationService` and
/// ``PositionSource/updates(_:)`` use), the watcher's granted presentation
/// (full or snapped) shapes the fix and sets its minimum interval, and its
/// connection's
/// ``UpdateOutlet`` keeps only the newest line while the client is not reading.
public final class WatchFanOut: Service, Sendable {
    /// One watch: its connection and subscription number.
    public struct Key: Hashable, Sendable {
        public var connection: ConnectionID
        public var subscription: Int
    }

    /// How the fan-out hears of fixes: a synchronous observation
    /// (``PositionSource/observe(_:)``), so each fix goes to the loops from the
    /// source's own executor with no task wake-up in between. Returns the
    /// observation's end.
    typealias Observation = @Sendable (@escaping @Sendable (LocationFix) -> Void) -> @Sendable () -> Void

    private let observe: Observation
    /// What a watcher joining now is shown at once (``PositionSource/fixForNewWatcher(at:)``).
    private let currentFix: @Sendable () -> LocationFix?
    private let authorizationChanges: (@Sendable () async -> AsyncStream<Void>)?
    private let tables: [(loop: any EventLoop, table: NIOLoopBoundBox<LoopTable>)]
    /// Every watcher, with its authorization re-check, and the observation
    /// of the hub while there is any. Behind a lock: watchers come and go
    /// from any task (and from synchronous end handlers), and a policy
    /// change runs the re-checks from ``run()``.
    private let state: Mutex<State>

    private struct State {
        var watchers: [Key: (loop: Int, recheck: (@Sendable () async -> Void)?)] = [:]
        /// Watchers per loop (by index in ``tables``): a fix wakes only the
        /// loops that serve one.
        var watchersPerLoop: [Int]
        /// Ends the hub observation; set while ``watchers`` is not empty.
        var endObservation: (@Sendable () -> Void)?
        /// After a graceful shutdown nothing observes the hub again.
        var isStopped = false

        init(loops: Int) { watchersPerLoop = Array(repeating: 0, count: loops) }
    }

    /// Creates the fan-out for the loops of `group`, fed by `hub` directly
    /// (``PositionSource/observe(_:)``).
    /// - Parameter authorizationChanges: yields whenever authorizations may
    ///   have changed (``AccessPolicy/authorizationChanges()``); every
    ///   watcher's re-check then runs. `nil`: nothing re-checks.
    public convenience init(
        group: any EventLoopGroup, authorizationChanges: (@Sendable () async -> AsyncStream<Void>)? = nil,
        hub: any PositionSource
    ) {
        self.init(
            group: group, authorizationChanges: authorizationChanges, currentFix: { hub.fixForNewWatcher() },
            observe: { hub.observe($0) })
    }

    init(
        group: any EventLoopGroup, authorizationChanges: (@Sendable () async -> AsyncStream<Void>)? = nil,
        currentFix: @escaping @Sendable () -> LocationFix? = { nil }, observe: @escaping Observation
    ) {
        self.observe = observe
        self.currentFix = currentFix
        self.authorizationChanges = authorizationChanges
        let tables = group.makeIterator().map { loop in
            (loop, NIOLoopBoundBox.makeBoxSendingValue(LoopTable(), as: LoopTable.self, eventLoop: loop))
        }
        self.tables = tables
        self.state = Mutex(State(loops: tables.count))
    }

    /// Delivers fixes, and re-checks watchers on policy changes, until a
    /// graceful shutdown begins.
    public func run() async throws {
        try await withThrowingDiscardingTaskGroup { group in
            if let authorizationChanges {
                let changes = await authorizationChanges()
                group.addTask {
                    // Not `cancelOnGracefulShutdown()` on the sequence: its
                    // merge starts an unstructured task on Swift's global pool.
                    await cancelWhenGracefulShutdown {
                        for await _ in changes { await self.recheckAll() }
                    }
                }
            }
            try? await gracefulShutdown()
            let end = state.withLock { state in
                state.isStopped = true
                defer { state.endObservation = nil }
                return state.endObservation
            }
            end?()
        }
    }

    /// Runs every watcher's re-check (one after another: a reload is rare,
    /// and each asks the policy actor anyway).
    func recheckAll() async {
        let all = state.withLock { $0.watchers.values.compactMap(\.recheck) }
        for recheck in all { await recheck() }
    }

    /// Hands `fix` to the watchers of every loop that has any: a loop
    /// without a watcher is not woken. The full-accuracy update (nearly
    /// every watcher's) is serialized here once for all loops; each loop
    /// stamps its age.
    /// - Returns: how many loops it was handed to.
    @discardableResult
    func publish(_ fix: LocationFix) -> Int {
        let perLoop = state.withLock { $0.watchersPerLoop }
        guard perLoop.contains(where: { $0 > 0 }) else { return 0 }
        let full = UpdateNotification(fix: fix)
        var woken = 0
        for (index, (loop, table)) in tables.enumerated() where perLoop[index] > 0 {
            loop.execute { table.value.deliver(fix, full: full) }
            woken += 1
        }
        return woken
    }

    /// Whether watchers whose connections run on `loop` can be served here.
    public func serves(_ loop: any EventLoop) -> Bool { table(for: loop) != nil }

    /// Starts delivering to a watcher (from its loop's next job on).
    /// - Returns: `false` when its outlet's loop is not one of this fan-out's.
    /// - Parameter recheck: judges the watcher's authorization again after a policy change.
    @discardableResult
    func add(
        _ key: Key, options: WatchOptions, presentation: GrantedPresentation, outlet: LoopBoundOutlet,
        recheck: (@Sendable () async -> Void)? = nil
    ) -> Bool {
        guard let index = index(of: outlet.eventLoop) else { return false }
        let table = tables[index].table
        // The first watcher starts the observation (under the lock: the
        // hub's lock is taken inside ours, never the other way round).
        state.withLock { state in
            if let previous = state.watchers.updateValue((index, recheck), forKey: key) {
                state.watchersPerLoop[previous.loop] -= 1
            }
            state.watchersPerLoop[index] += 1
            if state.endObservation == nil, !state.isStopped {
                state.endObservation = observe { [self] fix in publish(fix) }
            }
        }
        outlet.eventLoop.execute {
            table.value.watchers[key] = LoopTable.Watcher(
                options: options, presentation: presentation, outlet: outlet.value, subscription: key.subscription)
        }
        return true
    }

    /// Stops delivering to a watcher and drops its undelivered line.
    func remove(_ key: Key, outlet: LoopBoundOutlet) {
        let end = state.withLock { state -> (@Sendable () -> Void)? in
            if let removed = state.watchers.removeValue(forKey: key) { state.watchersPerLoop[removed.loop] -= 1 }
            guard state.watchers.isEmpty else { return nil }
            defer { state.endObservation = nil }
            return state.endObservation
        }
        end?()
        guard let table = table(for: outlet.eventLoop) else { return }
        outlet.eventLoop.execute {
            table.value.watchers.removeValue(forKey: key)?.outlet.discard(subscription: key.subscription)
        }
    }

    /// Shows one watcher the source's current fix, if it has one to show at
    /// once (a fixed position), by the watcher's own rules; for a watcher
    /// that just joined and whose grant is set.
    func showCurrentFix(to key: Key, outlet: LoopBoundOutlet) {
        guard let table = table(for: outlet.eventLoop), let fix = currentFix() else { return }
        outlet.eventLoop.execute { table.value.deliver(fix, to: key) }
    }

    private func table(for loop: any EventLoop) -> NIOLoopBoundBox<LoopTable>? {
        index(of: loop).map { tables[$0].table }
    }

    private func index(of loop: any EventLoop) -> Int? { tables.firstIndex { $0.loop === loop } }
}

/// The watchers of one event loop; used only on that loop.
///
/// A watcher is a value in the table: a pass walks the table's storage in
/// order, as the floor walks its array of descriptors, instead of
/// following a reference to each watcher (one more cold object a watcher a
/// fix, issue 40). The table is `@exclusivity(unchecked)`: only this loop
/// uses it, and a pass holds no access to it across a write to an outlet
/// (the one call that can reach back here: a closing connection removes
/// its watchers with a job of their own, never within the call).
final class LoopTable {
    /// One watcher. The fields a pass reads come first, together.
    struct Watcher {
        /// `presentation`'s value, as read after ``GrantedPresentation/changeCount`` read `copiedAt`.
        private var copiedAt: UInt64?
        private var presentationCopy: FixPresentation?
        let outlet: any UpdateOutlet
        let subscription: Int
        /// Its options and what it keeps of the last fix delivered, as this watcher was shown it.
        var filter: WatchFilter
        let presentation: GrantedPresentation

        init(options: WatchOptions, presentation: GrantedPresentation, outlet: any UpdateOutlet, subscription: Int) {
            self.filter = WatchFilter(options)
            self.presentation = presentation
            self.outlet = outlet
            self.subscription = subscription
        }

        /// The granted presentation (`nil`: none any more), read through
        /// `presentation`'s lock only after a grant changed.
        mutating func currentPresentation() -> FixPresentation? {
            let changes = GrantedPresentation.changeCount
            if copiedAt != changes {
                presentationCopy = presentation.value
                copiedAt = changes
            }
            return presentationCopy
        }
    }

    @exclusivity(unchecked) var watchers: [WatchFanOut.Key: Watcher] = [:]

    /// Writes `fix` to every watcher whose options take it: shown and
    /// serialized once per presentation with the age measured once for the
    /// pass, and each distinct line (presentation and subscription number)
    /// rendered once. Each watcher's filter judges the fix as that watcher is
    /// shown it, with its presentation's ``FixPresentation/minimumUpdateInterval``
    /// (``FixPresentation/shouldDeliver(_:after:options:)``), so a reduced
    /// watch never learns of moves inside a cell.
    /// - Parameter full: `fix`'s full-accuracy update, when the caller
    ///   serialized it already (``WatchFanOut/publish(_:)``, once for every loop).
    func deliver(_ fix: LocationFix, full: UpdateNotification? = nil) {
        guard !watchers.isEmpty else { return }
        let pass = Pass(fix, full: full)
        var index = watchers.values.startIndex
        while index != watchers.values.endIndex {
            // The access to the table ends before the write.
            if let (outlet, line) = pass.judge(&watchers.values[index]) { outlet.write(line) }
            watchers.values.formIndex(after: &index)
        }
    }

    /// Writes `fix` to the watcher `key`, if it has one and its options take it.
    func deliver(_ fix: LocationFix, to key: WatchFanOut.Key) {
        guard let index = watchers.index(forKey: key) else { return }
        if let (outlet, line) = Pass(fix, full: nil).judge(&watchers.values[index]) { outlet.write(line) }
    }

    /// One fix's way to a loop's watchers: its renderings, one per
    /// presentation met. Few presentations per daemon (full, and one
    /// reduced grid): a list beats hashing per watcher, and the one the
    /// last watcher had is tried first. The first needs no list (nearly
    /// every pass has one presentation: no allocation for the list).
    ///
    /// A class, one a pass: it holds the pass's time, a
    /// `ContinuousClock.Instant`, whose layout the standard library keeps
    /// to itself, so a struct holding it (or a function taking it) asks the
    /// runtime for its metadata at every use: once a watcher.
    private final class Pass {
        let fix: LocationFix
        let full: UpdateNotification?
        @exclusivity(unchecked) var first: Rendering?
        @exclusivity(unchecked) var others: [Rendering] = []
        @exclusivity(unchecked) var last: Rendering?
        /// The lines' age is measured at this time, once for the pass.
        let now = ContinuousClock.now

        init(_ fix: LocationFix, full: UpdateNotification?) {
            self.fix = fix
            self.full = full
        }

        /// Judges `fix` for `watcher` (its filter records it when it goes):
        /// the outlet and line to write, or `nil`.
        func judge(_ watcher: inout Watcher) -> (any UpdateOutlet, RenderedUpdate)? {
            guard let presentation = watcher.currentPresentation() else { return nil }
            let rendering: Rendering
            if let last, last.presentation == presentation {
                rendering = last
            } else if let first, first.presentation == presentation {
                rendering = first
            } else if let known = others.first(where: { $0.presentation == presentation }) {
                rendering = known
            } else {
                rendering = Rendering(presentation, fix: fix, full: full, at: now)
                if first == nil { first = rendering } else { others.append(rendering) }
            }
            last = rendering
            guard watcher.filter.pass(rendering.shown, minimumInterval: presentation.minimumUpdateInterval) else {
                return nil
            }
            return (watcher.outlet, rendering.line(for: watcher.subscription))
        }
    }

    /// A pass's fix as one presentation shows it, serialized once, with
    /// its lines by subscription number (a class: a pass hands it around
    /// by reference; a tuple holding a `LocationFix` was copied through
    /// the runtime at every look, issue 40).
    private final class Rendering {
        let presentation: FixPresentation
        let shown: LocationFix
        let notification: UpdateNotification
        /// The line rendered last (most watchers of a pass share one subscription number), the
        /// first, and every other one (a dictionary only once a second number comes).
        @exclusivity(unchecked) private var lastLine: RenderedUpdate?
        @exclusivity(unchecked) private var firstLine: RenderedUpdate?
        @exclusivity(unchecked) private var otherLines: [Int: RenderedUpdate] = [:]

        /// `fix` shown as `presentation`, its age fixed at `now`; `full`: its full-accuracy update, if serialized already.
        init(
            _ presentation: FixPresentation, fix: LocationFix, full: UpdateNotification?,
            at now: ContinuousClock.Instant
        ) {
            self.presentation = presentation
            shown = presentation.apply(fix)
            notification = ((presentation == .full ? full : nil) ?? UpdateNotification(fix: shown)).stamped(at: now)
        }

        /// The line for `subscription`, rendered once per pass.
        func line(for subscription: Int) -> RenderedUpdate {
            if let lastLine, lastLine.subscription == subscription { return lastLine }
            let line: RenderedUpdate
            if let firstLine, firstLine.subscription == subscription {
                line = firstLine
            } else if let known = otherLines[subscription] {
                line = known
            } else {
                line = RenderedUpdate(notification, subscription: subscription)
                if firstLine == nil { firstLine = line } else { otherLines[subscription] = line }
            }
            lastLine = line
            return line
        }
    }
}
