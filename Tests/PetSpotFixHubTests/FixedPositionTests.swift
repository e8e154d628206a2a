import NIOConcurrencyHelpers
import PetSpotFixHub
import PetSpotLocation
import TestSupport
import Testing

/// The static source's kind of ``PositionSource``: answers from its position
/// at once, with no hub, no actor and no task behind it.
@Suite struct FixedPositionTests {
    static let position = makeFix(latitude: 48.85, longitude: 2.35, mode: .twoD, altitude: nil)

    static func source() -> FixedPosition {
        FixedPosition(
            Fallback(kind: .static) { now in
                var fix = position
                fix.receivedAt = now
                fix.source = .static
                return fix
            })
    }

    @Test func answersAtOnceWithNothingRunning() async throws {
        let source = Self.source()
        let now = ContinuousClock.now
        // Synchronous: no hop, no waiter, nothing feeding it.
        let cached = try #require(source.cachedAnswer(LocationRequest(maxAge: .zero), at: now))
        #expect(cached.coordinate == Self.position.coordinate && cached.receivedAt == now)
        // Nothing better ever comes: a request for more than it has is refused at once, whatever its timeout.
        #expect(source.cachedAnswer(LocationRequest(minMode: .threeD)) == nil)
        let refused = ContinuousClock.now
        await #expect(throws: LocationError.locationUnknown) {
            try await source.location(LocationRequest(timeout: .seconds(300), minMode: .threeD))
        }
        #expect(ContinuousClock.now - refused < .seconds(60))
        #expect(try await source.location(LocationRequest()).coordinate == Self.position.coordinate)
        #expect(source.fixForNewWatcher()?.coordinate == Self.position.coordinate)
        #expect(source.newestMode == .twoD)
        let status = await source.status()
        #expect(status.kind == .static && status.connected && status.lastFixAge == 0)
        #expect(status.fixes == 0 && status.fallback == nil && status.reason == nil)
    }

    /// Ticks reach its observers and are counted; an ended observation hears nothing more.
    @Test func ticksReachObserversAndAreCounted() async throws {
        let source = Self.source()
        #expect(!source.isListened)
        let heard = NIOLockedValueBox<Int>(0)
        let end = source.observe { _ in heard.withLockedValue { $0 += 1 } }
        #expect(source.isListened)
        source.tick(Self.position)
        #expect(heard.withLockedValue { $0 } == 1)
        end()
        #expect(!source.isListened)
        source.tick(Self.position)
        #expect(heard.withLockedValue { $0 } == 1)
        #expect(await source.status().fixes == 2)
    }

    /// A ticker waiting for a listener wakes when one observes.
    @Test func untilListenedReturnsOnceObserved() async {
        let source = Self.source()
        let waiting = Task { await source.untilListened() }
        let end = source.observe { _ in }
        await waiting.value
        end()
    }

    /// Both kinds serve through the one protocol.
    @Test func bothKindsAreOnePositionSource() {
        let sources: [any PositionSource] = [Self.source(), LiveFixHub(kind: .gpsd)]
        #expect(sources.map(\.kind) == [.static, .gpsd])
        #expect(sources.map { $0.fixForNewWatcher() != nil } == [true, false])
    }
}
