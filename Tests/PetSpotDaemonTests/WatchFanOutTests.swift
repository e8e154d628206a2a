import Dispatch
import NIOCore
import NIOEmbedded
import PetSpotFixHub
import PetSpotJSON
import PetSpotLocation
import PetSpotPolicy
import PetSpotProtocol
import Testing

@testable import PetSpotDaemon

/// The fan-out applies each watcher's options and granted presentation,
/// once per fix, on the watcher's own loop.
@Suite struct WatchFanOutTests {
    /// Records what the fan-out writes.
    final class RecordingOutlet: UpdateOutlet {
        var lines: [(subscription: Int, fix: LocationFix)] = []
        var discarded: [Int] = []
        var buffers: [ByteBuffer] = []
        func write(_ update: RenderedUpdate) {
            lines.append((update.subscription, update.notification.fix))
            buffers.append(update.line)
        }
        func discard(subscription: Int) { discarded.append(subscription) }
    }

    static let start = ContinuousClock.now

    static func fix(_ latitude: Double, after seconds: Int) -> LocationFix {
        LocationFix(
            coordinate: Coordinate(latitude: latitude, longitude: 21.0122), horizontalAccuracy: 5, mode: .twoD,
            source: .gpsd, receivedAt: start + .seconds(seconds))
    }

    static func key(_ subscription: Int) -> WatchFanOut.Key {
        WatchFanOut.Key(connection: ConnectionID(1), subscription: subscription)
    }

    @Test func eachWatcherGetsWhatItsOptionsAndGrantAllow() throws {
        let loop = EmbeddedEventLoop()
        let fanOut = WatchFanOut(group: loop) { _ in {} }
        let outlet = RecordingOutlet()
        let bound = LoopBoundOutlet(outlet, eventLoop: loop)
        let reduced = GrantedPresentation(.reduced(cellMeters: 3000))
        let revoked = GrantedPresentation(.full)
        #expect(
            fanOut.add(Self.key(1), options: WatchOptions(), presentation: GrantedPresentation(.full), outlet: bound))
        #expect(fanOut.add(Self.key(2), options: WatchOptions(), presentation: reduced, outlet: bound))
        #expect(
            fanOut.add(
                Self.key(3), options: WatchOptions(distanceFilter: 1000), presentation: GrantedPresentation(.full),
                outlet: bound))
        #expect(fanOut.add(Self.key(4), options: WatchOptions(), presentation: revoked, outlet: bound))
        loop.run()

        revoked.set(nil)
        fanOut.publish(Self.fix(52.2297, after: 0))
        fanOut.publish(Self.fix(52.2298, after: 1))  // ~11 m on: under watcher 3's distance filter
        loop.run()

        let bySubscription = Dictionary(grouping: outlet.lines, by: \.subscription)
        #expect(bySubscription[1]?.map(\.fix.coordinate.latitude) == [52.2297, 52.2298])
        #expect(bySubscription[3]?.map(\.fix.coordinate.latitude) == [52.2297])
        #expect(bySubscription[4] == nil)
        // A reduced watch gets at most one update per reduced_update_interval (60 s).
        let snapped = try #require(bySubscription[2]).map(\.fix)
        #expect(snapped.count == 1)
        #expect(snapped[0] == ReducedAccuracy.reduce(Self.fix(52.2297, after: 0), cellMeters: 3000))
        #expect(snapped.allSatisfy { $0.accuracy == .reduced && ($0.horizontalAccuracy ?? 0) >= 3000 })
    }

    /// A grant that changes between fixes (a reload, a revocation) holds
    /// from the next fix on, though a delivery reads its own copy of the
    /// grant and takes the grant's lock only after some grant changed: a
    /// watcher whose grant did not change keeps what it had.
    @Test func aGrantChangedBetweenFixesHoldsFromTheNextFix() throws {
        let loop = EmbeddedEventLoop()
        let fanOut = WatchFanOut(group: loop) { _ in {} }
        let outlet = RecordingOutlet()
        let bound = LoopBoundOutlet(outlet, eventLoop: loop)
        let changing = GrantedPresentation(.full)
        let unchanged = GrantedPresentation(.full)
        #expect(fanOut.add(Self.key(1), options: WatchOptions(), presentation: changing, outlet: bound))
        #expect(fanOut.add(Self.key(2), options: WatchOptions(), presentation: unchanged, outlet: bound))
        loop.run()

        let fixes = [52.2297, 52.2397, 52.2497, 52.2597].enumerated().map { Self.fix($1, after: 100 * $0) }
        fanOut.publish(fixes[0])
        loop.run()
        changing.set(.reduced(cellMeters: 3000))
        fanOut.publish(fixes[1])
        loop.run()
        changing.set(nil)
        fanOut.publish(fixes[2])
        loop.run()
        changing.set(.full)
        fanOut.publish(fixes[3])
        loop.run()

        let bySubscription = Dictionary(grouping: outlet.lines, by: \.subscription)
        #expect(
            bySubscription[1]?.map(\.fix) == [
                fixes[0], ReducedAccuracy.reduce(fixes[1], cellMeters: 3000), fixes[3],
            ])
        #expect(bySubscription[2]?.map(\.fix) == fixes)
    }

    /// Two embedded loops as one group.
    final class TwoLoops: EventLoopGroup {
        let loops = [EmbeddedEventLoop(), EmbeddedEventLoop()]
        func next() -> any EventLoop { loops[0] }
        func makeIterator() -> EventLoopIterator { EventLoopIterator(loops) }
        func shutdownGracefully(queue: DispatchQueue, _ callback: @escaping @Sendable ((any Error)?) -> Void) {
            callback(nil)
        }
    }

    /// A fix wakes only the loops that serve a watcher (issue 28: each
    /// wake-up costs a device power): a loop whose watchers all left is not
    /// woken again.
    @Test func aFixWakesOnlyTheLoopsWithWatchers() throws {
        let group = TwoLoops()
        let fanOut = WatchFanOut(group: group) { _ in {} }
        let outlet = RecordingOutlet()
        let onFirst = LoopBoundOutlet(outlet, eventLoop: group.loops[0])
        let onSecond = LoopBoundOutlet(outlet, eventLoop: group.loops[1])
        #expect(fanOut.publish(Self.fix(52.2297, after: 0)) == 0)
        fanOut.add(Self.key(1), options: WatchOptions(), presentation: GrantedPresentation(.full), outlet: onFirst)
        #expect(fanOut.publish(Self.fix(52.2297, after: 1)) == 1)
        fanOut.add(Self.key(2), options: WatchOptions(), presentation: GrantedPresentation(.full), outlet: onSecond)
        #expect(fanOut.publish(Self.fix(52.2297, after: 2)) == 2)
        fanOut.remove(Self.key(1), outlet: onFirst)
        #expect(fanOut.publish(Self.fix(52.2297, after: 3)) == 1)
        for loop in group.loops { loop.run() }
        // Watcher 1 had fixes 1 and 2 (its removal runs after them), watcher 2 fixes 2 and 3.
        #expect(outlet.lines.map(\.subscription) == [1, 1, 2, 2])
    }

    /// A full watch's updates are what one ``WatchFilter`` passes (the rule
    /// the mock's watches use too: `MockWatchFilterTests`); a reduced one's
    /// are what it passes with the presentation's minimum interval.
    @Test func deliversWhatTheSharedWatchFilterPasses() throws {
        let loop = EmbeddedEventLoop()
        let fanOut = WatchFanOut(group: loop) { _ in {} }
        let outlet = RecordingOutlet()
        let bound = LoopBoundOutlet(outlet, eventLoop: loop)
        let options = WatchOptions(distanceFilter: 100, interval: .seconds(1))
        let reduced = FixPresentation.reduced(cellMeters: 100, updateInterval: .seconds(2))
        fanOut.add(Self.key(1), options: options, presentation: GrantedPresentation(.full), outlet: bound)
        fanOut.add(Self.key(2), options: options, presentation: GrantedPresentation(reduced), outlet: bound)
        loop.run()
        let script: [(Int, Double)] = [(0, 0), (500, 500), (1_200, 60), (1_400, 120), (1_600, 400), (3_000, 450)]
        let fixes = script.map { offset, north in
            LocationFix(
                coordinate: Coordinate(latitude: 52 + north / 111_195, longitude: 21), horizontalAccuracy: 5,
                mode: .twoD, source: .gpsd, receivedAt: Self.start + .milliseconds(offset))
        }
        var full = WatchFilter(options)
        var snapped = WatchFilter(options)
        let expectedFull = fixes.filter { full.pass($0) }
        let expectedReduced = fixes.map(reduced.apply).filter {
            snapped.pass($0, minimumInterval: reduced.minimumUpdateInterval)
        }
        for fix in fixes { fanOut.publish(fix) }
        loop.run()
        let bySubscription = Dictionary(grouping: outlet.lines, by: \.subscription)
        #expect(bySubscription[1]?.map(\.fix.coordinate) == expectedFull.map(\.coordinate))
        #expect(expectedFull.count == 3)
        #expect(bySubscription[2]?.map(\.fix.coordinate) == expectedReduced.map(\.coordinate))
        #expect(expectedReduced.count == 2)
    }

    /// Watchers on other connections with the same subscription number and
    /// presentation share a rendered line; each line still names its own
    /// subscription and shows its own presentation.
    @Test func eachLineNamesItsSubscriptionAndPresentation() throws {
        let loop = EmbeddedEventLoop()
        let fanOut = WatchFanOut(group: loop) { _ in {} }
        let outlet = RecordingOutlet()
        let bound = LoopBoundOutlet(outlet, eventLoop: loop)
        let watchers: [(connection: Int, subscription: Int, presentation: FixPresentation)] = [
            (1, 1, .full), (2, 1, .full), (3, 2, .full), (4, 1, .reduced(cellMeters: 3000)),
            // A third subscription number and a third presentation, met after the first ones.
            (5, 3, .full), (6, 2, .full), (7, 1, .reduced(cellMeters: 10_000)), (8, 1, .reduced(cellMeters: 3000)),
        ]
        for watcher in watchers {
            fanOut.add(
                WatchFanOut.Key(
                    connection: ConnectionID(UInt64(watcher.connection)), subscription: watcher.subscription),
                options: WatchOptions(), presentation: GrantedPresentation(watcher.presentation), outlet: bound)
        }
        loop.run()
        fanOut.publish(Self.fix(52.2297, after: 0))
        loop.run()

        #expect(outlet.buffers.count == watchers.count)
        var seen: [(subscription: Int, latitude: Double, accuracy: String)] = []
        for buffer in outlet.buffers {
            #expect(buffer.readableBytesView.last == UInt8(ascii: "\n"))
            let message = try JSONValue.parse(bytes: buffer.readableBytesView.dropLast())
            guard case .number(let subscription)? = message["params"]?["subscription"],
                case .number(let latitude)? = message["params"]?["fix"]?["latitude"],
                case .string(let accuracy)? = message["params"]?["fix"]?["accuracy"]
            else {
                Issue.record("not an update: \(String(buffer: buffer))")
                continue
            }
            seen.append((Int(subscription), latitude, accuracy))
        }
        let reduced = ReducedAccuracy.reduce(Self.fix(52.2297, after: 0), cellMeters: 3000).coordinate.latitude
        let reducedFiner = ReducedAccuracy.reduce(Self.fix(52.2297, after: 0), cellMeters: 10_000).coordinate.latitude
        #expect(reduced != reducedFiner)
        #expect(seen.filter { $0.accuracy == "full" }.map(\.subscription).sorted() == [1, 1, 2, 2, 3])
        #expect(seen.filter { $0.accuracy == "full" }.allSatisfy { $0.latitude == 52.2297 })
        #expect(seen.filter { $0.accuracy == "reduced" }.map(\.subscription) == [1, 1, 1])
        #expect(
            seen.filter { $0.accuracy == "reduced" }.map(\.latitude).sorted()
                == [reduced, reduced, reducedFiner].sorted())
    }

    @Test func aRemovedWatcherGetsNothingMoreAndLosesItsHeldLine() throws {
        let loop = EmbeddedEventLoop()
        let fanOut = WatchFanOut(group: loop) { _ in {} }
        let outlet = RecordingOutlet()
        let bound = LoopBoundOutlet(outlet, eventLoop: loop)
        fanOut.add(Self.key(5), options: WatchOptions(), presentation: GrantedPresentation(.full), outlet: bound)
        fanOut.publish(Self.fix(1, after: 0))
        fanOut.remove(Self.key(5), outlet: bound)
        fanOut.publish(Self.fix(2, after: 1))
        loop.run()
        #expect(outlet.lines.map(\.fix.coordinate.latitude) == [1])
        #expect(outlet.discarded == [5])
    }

    @Test func aLoopOutsideTheGroupIsNotServed() throws {
        let loop = EmbeddedEventLoop()
        let other = EmbeddedEventLoop()
        let fanOut = WatchFanOut(group: loop) { _ in {} }
        #expect(fanOut.serves(loop))
        #expect(!fanOut.serves(other))
        let outlet = LoopBoundOutlet(RecordingOutlet(), eventLoop: other)
        #expect(
            !fanOut.add(Self.key(1), options: WatchOptions(), presentation: GrantedPresentation(.full), outlet: outlet))
    }

    @Test func observesTheHubOnlyWhileItHasWatchers() async throws {
        let loop = EmbeddedEventLoop()
        let hub = LiveFixHub(kind: .gpsd)
        let fanOut = WatchFanOut(group: loop, hub: hub)
        let outlet = RecordingOutlet()
        let bound = LoopBoundOutlet(outlet, eventLoop: loop)
        #expect(!hub.isListened)  // a source that ticks for listeners rests
        fanOut.add(Self.key(1), options: WatchOptions(), presentation: GrantedPresentation(.full), outlet: bound)
        fanOut.add(Self.key(2), options: WatchOptions(), presentation: GrantedPresentation(.full), outlet: bound)
        #expect(hub.isListened)
        hub.receive(.fix(Self.fix(1, after: 0)))
        fanOut.remove(Self.key(1), outlet: bound)
        #expect(hub.isListened)
        fanOut.remove(Self.key(2), outlet: bound)
        #expect(!hub.isListened)
        hub.receive(.fix(Self.fix(2, after: 1)))
        loop.run()
        #expect(outlet.lines.map(\.fix.coordinate.latitude) == [1, 1])
    }

    @Test func aJoiningWatcherAloneIsShownAFixedHubsPosition() throws {
        let loop = EmbeddedEventLoop()
        let position = Self.fix(7, after: 0)
        let hub = FixedPosition(Fallback(kind: .static) { now in position })
        let fanOut = WatchFanOut(group: loop, hub: hub)
        let outlet = RecordingOutlet()
        let bound = LoopBoundOutlet(outlet, eventLoop: loop)
        fanOut.add(Self.key(1), options: WatchOptions(), presentation: GrantedPresentation(.full), outlet: bound)
        fanOut.add(
            Self.key(2), options: WatchOptions(), presentation: GrantedPresentation(.reduced(cellMeters: 3000)),
            outlet: bound)
        fanOut.showCurrentFix(to: Self.key(2), outlet: bound)
        loop.run()
        // Only the joining watcher, as its grant shows it.
        #expect(outlet.lines.map(\.subscription) == [2])
        #expect(outlet.lines.first?.fix.accuracy == .reduced)
        // A live hub has nothing to show at once.
        let streaming = WatchFanOut(group: loop, hub: LiveFixHub(kind: .gpsd))
        streaming.add(Self.key(3), options: WatchOptions(), presentation: GrantedPresentation(.full), outlet: bound)
        streaming.showCurrentFix(to: Self.key(3), outlet: bound)
        loop.run()
        #expect(outlet.lines.count == 1)
    }
}
