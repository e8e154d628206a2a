import PetSpotFixHub
import PetSpotLocation
import TestSupport
import Testing

/// A fix for the hub tests; `receivedAt` defaults to now.
func makeFix(
    latitude: Double = 52.2297, longitude: Double = 21.0122, accuracy: Double? = nil, mode: FixMode = .threeD,
    altitude: Double? = 100, receivedAt: ContinuousClock.Instant = .now
) -> LocationFix {
    LocationFix(
        coordinate: Coordinate(latitude: latitude, longitude: longitude), altitude: altitude,
        horizontalAccuracy: accuracy, mode: mode, source: .gpsd, receivedAt: receivedAt)
}

/// Starts `hub.location(request)` in a task and returns once the hub has
/// registered it as a waiter (so fixes sent afterwards reach it).
func startWaiting(
    on hub: LiveFixHub, _ request: LocationRequest, waiters: Int = 1, sourceLocation: SourceLocation = #_sourceLocation
) async -> Task<Result<LocationFix, LocationError>, Never> {
    let task = Task { () -> Result<LocationFix, LocationError> in
        do throws(LocationError) {
            return .success(try await hub.location(request))
        } catch {
            return .failure(error)
        }
    }
    let registered = await eventually { hub.waiterCount == waiters }
    #expect(registered, "the request never started waiting", sourceLocation: sourceLocation)
    return task
}

/// The outcome of a request, or `nil` when it did not end within `limit`
/// (then the request is cancelled so the test cannot hang). The default is
/// generous: a loaded machine may be slow, and a passing test never waits for it.
func outcome(
    of task: Task<Result<LocationFix, LocationError>, Never>, within limit: Duration = .seconds(60)
) async -> Result<LocationFix, LocationError>? {
    await withTaskGroup(of: Result<LocationFix, LocationError>?.self) { group in
        group.addTask { await task.value }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        if first == nil { task.cancel() }
        group.cancelAll()
        return first
    }
}

/// The next element of `stream`, or `nil` when none arrives within `limit`
/// (by default a bound against a hang, generous for a loaded machine).
///
/// A timeout cancels the read, which ends the stream: use a short limit
/// only as the last read of a stream.
func next(
    _ stream: AsyncThrowingStream<LocationFix, any Error>, within limit: Duration = .seconds(60)
) async -> LocationFix? {
    await withTaskGroup(of: LocationFix?.self) { group in
        group.addTask {
            var iterator = stream.makeAsyncIterator()
            return try? await iterator.next()
        }
        group.addTask {
            try? await Task.sleep(for: limit)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}
