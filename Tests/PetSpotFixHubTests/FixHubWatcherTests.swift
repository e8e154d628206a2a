import NIOConcurrencyHelpers
import PetSpotFixHub
import PetSpotLocation
import TestSupport
import Testing

@Suite struct FixHubWatcherTests {
    /// An observer hears every accepted fix as the hub takes it (before
    /// `receive` returns), never a rejected one, and nothing after it ends.
    @Test func observerGetsEveryValidFixSynchronouslyUntilItEnds() async throws {
        let hub = LiveFixHub(kind: .gpsd, minimumMode: .threeD)
        let heard = NIOLockedValueBox<[LocationFix]>([])
        let end = hub.observe { fix in heard.withLockedValue { $0.append(fix) } }
        let first = makeFix(latitude: 1)
        hub.receive(.fix(first))
        #expect(heard.withLockedValue { $0 } == [first])
        hub.receive(.fix(makeFix(latitude: 91)))  // invalid coordinate
        hub.receive(.fix(makeFix(latitude: 2, mode: .twoD)))  // below min_mode
        #expect(heard.withLockedValue { $0 } == [first])
        let second = makeFix(latitude: 3)
        hub.receive(.fix(second))
        #expect(heard.withLockedValue { $0 } == [first, second])
        end()
        hub.receive(.fix(makeFix(latitude: 4)))
        #expect(heard.withLockedValue { $0 } == [first, second])
    }

    @Test func watcherGetsEveryValidFixWhenReading() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        let stream = hub.updates(WatchOptions())
        #expect(hub.observerCount == 1)
        for index in 1...3 {
            let fix = makeFix(latitude: Double(index))
            hub.receive(.fix(makeFix(latitude: 91)))  // never delivered
            hub.receive(.fix(fix))
            #expect(await next(stream) == fix)
        }
    }

    /// B (60 m from A) is filtered; C is 120 m from A but only 60 m from B,
    /// so C arrives only if the hub measured from A, the last delivered fix.
    @Test func distanceFilterMeasuresFromTheLastDeliveredFix() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        let stream = hub.updates(WatchOptions(distanceFilter: 100))
        let a = makeFix(latitude: 52)
        let b = makeFix(latitude: 52 + 60.0 / 111_195)
        let c = makeFix(latitude: 52 + 120.0 / 111_195)
        hub.receive(.fix(a))
        #expect(await next(stream) == a)
        hub.receive(.fix(b))
        hub.receive(.fix(c))
        #expect(await next(stream) == c)
        // Nothing else is pending (B was never queued behind C).
        #expect(await next(stream, within: .milliseconds(200)) == nil)
    }

    @Test func intervalFilterMeasuresFromTheLastDeliveredFix() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        let stream = hub.updates(WatchOptions(interval: .seconds(1)))
        let start = ContinuousClock.now
        let a = makeFix(latitude: 1, receivedAt: start)
        let b = makeFix(latitude: 2, receivedAt: start + .milliseconds(500))
        let c = makeFix(latitude: 3, receivedAt: start + .milliseconds(1000))
        let d = makeFix(latitude: 4, receivedAt: start + .milliseconds(1500))
        hub.receive(.fix(a))
        #expect(await next(stream) == a)
        hub.receive(.fix(b))
        hub.receive(.fix(c))
        #expect(await next(stream) == c)
        hub.receive(.fix(d))
        #expect(await next(stream, within: .milliseconds(200)) == nil)
    }

    @Test func slowWatcherHoldsOnlyTheNewestFix() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        let stream = hub.updates(WatchOptions())
        var newest: LocationFix?
        for index in 0..<1000 {
            let fix = makeFix(latitude: Double(index) / 100)
            newest = fix
            hub.receive(.fix(fix))
        }
        #expect(hub.status().fixes == 1000)
        #expect(await next(stream) == newest)
        #expect(await next(stream, within: .milliseconds(200)) == nil)
    }

    /// A watcher that never reads does not hold up requests or other watchers.
    @Test func slowWatcherDoesNotSlowOthers() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        let idle = hub.updates(WatchOptions())
        let reader = hub.updates(WatchOptions())
        for index in 0..<100 {
            let fix = makeFix(latitude: Double(index) / 10)
            hub.receive(.fix(fix))
            #expect(await next(reader) == fix)
        }
        #expect(try await hub.location(LocationRequest()).coordinate.latitude == 9.9)
        #expect(await next(idle)?.coordinate.latitude == 9.9)
    }

    @Test func cancellingConsumptionEndsTheObservation() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        let stream = hub.updates(WatchOptions())
        let consumer = Task {
            var count = 0
            do {
                for try await _ in stream { count += 1 }
            } catch {}
            return count
        }
        #expect(hub.observerCount == 1)
        hub.receive(.fix(makeFix()))
        consumer.cancel()
        _ = await consumer.value
        #expect(await eventually { hub.observerCount == 0 })
        // Fixes keep flowing with nobody subscribed.
        hub.receive(.fix(makeFix()))
        #expect(hub.status().fixes == 2)
    }
}

/// Watchers ending while fixes are delivered: the hub must not hold its
/// observer lock while it wakes a consumer (``PositionSource/updates(_:)``
/// yields from an observer), or a consumer being cancelled (holding its
/// task's status lock, wanting the hub's lock to end its observation) and a
/// delivery (holding the hub's lock, wanting that task's status lock)
/// deadlock. This happened at daemon shutdown. With the lock held across
/// the yields this test deadlocked every run (checked); as the deadlock can
/// take both pool threads, the time limit may not fire: a regression shows
/// as this test hanging.
@Suite(.timeLimit(.minutes(5))) struct FixHubCancellationRaceTests {
    @Test func cancellingWatchersWhileFixesArriveNeverDeadlocks() async throws {
        let hub = LiveFixHub(kind: .gpsd)
        // Fixes keep arriving for the whole test.
        let producer = Task {
            var index = 0
            while !Task.isCancelled {
                index += 1
                hub.receive(.fix(makeFix(latitude: Double(index % 80))))
            }
        }
        defer { producer.cancel() }
        for _ in 0..<300 {
            // Each consumer reports its first fix, so all are mid-stream when cancelled.
            let (started, ready) = AsyncStream<Void>.makeStream()
            let consumers = (0..<8).map { _ in
                let stream = hub.updates(WatchOptions())
                return Task {
                    var first = true
                    for try await _ in stream where first {
                        first = false
                        ready.yield()
                    }
                }
            }
            var iterator = started.makeAsyncIterator()
            for _ in consumers { _ = await iterator.next() }
            for consumer in consumers { consumer.cancel() }
            for consumer in consumers { _ = try? await consumer.value }
        }
        #expect(hub.observerCount == 0)
    }
}
