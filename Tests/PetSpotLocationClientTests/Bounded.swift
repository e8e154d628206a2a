import PetSpotLocation
import PetSpotLocationClient

extension LocationClient {
    /// A client for these tests: its send limit is one a loaded machine never
    /// reaches (a test process starved of CPU has taken more than 10 s to
    /// resume a finished write), so each test fails only on what it tests.
    static func patient(
        _ path: String, answerLimit: Duration = LocationClient.answerLimit,
        responseMargin: Duration = LocationClient.responseMargin, resubscribe: Bool = true
    ) -> LocationClient {
        LocationClient(
            socketPath: path, answerLimit: answerLimit, responseMargin: responseMargin, sendLimit: .seconds(300),
            resubscribe: resubscribe)
    }
}

/// `body`'s value, or nil when `bound` passes first. Unlike a task group
/// (``withDeadline``), it does not wait for a `body` that ignores
/// cancellation: a client that hangs makes the test fail after `bound`
/// instead of holding it until the suite's time limit. The bound is a limit,
/// never a synchronisation: a test that passes does not wait for it.
func firstWithin<T: Sendable>(_ bound: Duration, _ body: @escaping @Sendable () async -> T) async -> T? {
    let (outcomes, outcome) = AsyncStream<T?>.makeStream()
    let work = Task { outcome.yield(await body()) }
    let timer = Task {
        guard (try? await Task.sleep(for: bound)) != nil else { return }
        outcome.yield(nil)
    }
    var iterator = outcomes.makeAsyncIterator()
    let first = await iterator.next() ?? nil
    timer.cancel()
    work.cancel()
    outcome.finish()
    return first
}

/// How a watch stream ended: nil if it finished normally, else its error
/// (a ``LocationError``; anything else is reported as `internalError`).
func ending(of stream: AsyncThrowingStream<LocationFix, any Error>) async -> LocationError? {
    do {
        for try await _ in stream {}
        return nil
    } catch let error as LocationError {
        return error
    } catch {
        return .internalError("not a LocationError: \(error)")
    }
}
