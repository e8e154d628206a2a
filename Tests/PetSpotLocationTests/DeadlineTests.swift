@testable import PetSpotLocation
import Testing

@Suite("withDeadline: the one deadline race")
struct DeadlineTests {
    @Test func anOperationThatEndsFirstWinsAndTheTimerRunsNothing() async {
        let fired = Flag()
        let value = await withDeadline(.now + .seconds(60)) {
            await fired.set()
            return -1
        } operation: {
            42
        }
        #expect(value == 42)
        #expect(await fired.isSet == false)
    }

    @Test func aValueFromTheDeadlineEndsTheRaceAndCancelsTheOperation() async {
        let cancelled = Flag()
        let value = await withDeadline(.now + .milliseconds(10)) {
            -1
        } operation: {
            // Never ends by itself: only cancellation lets it go.
            await withTaskCancellationHandler {
                await cancelled.waitUntilSet()
            } onCancel: {
                Task { await cancelled.set() }
            }
            return 42
        }
        #expect(value == -1)
        #expect(await cancelled.isSet)
    }

    @Test func nilFromTheDeadlineWaitsForTheOperationItEnded() async {
        let ended = Flag()
        let value: Int = await withDeadline(.now + .milliseconds(10)) {
            await ended.set()
            return nil
        } operation: {
            await ended.waitUntilSet()
            return Task.isCancelled ? -2 : 42
        }
        #expect(value == 42)
    }

    @Test func aDeadlineAlreadyPastStillRunsTheHandler() async {
        let value = await withDeadline(.now - .seconds(1)) {
            7
        } operation: {
            try? await Task.sleep(for: .seconds(60))
            return 42
        }
        #expect(value == 7)
    }
}

/// A one-shot flag that can be awaited.
private actor Flag {
    private(set) var isSet = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func set() {
        isSet = true
        for waiter in waiters { waiter.resume() }
        waiters = []
    }

    func waitUntilSet() async {
        guard !isSet else { return }
        await withCheckedContinuation { waiters.append($0) }
    }
}
