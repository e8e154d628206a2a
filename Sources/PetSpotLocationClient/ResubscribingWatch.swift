import PetSpotLocation

/// What a ``LocationClient/watch(_:)`` stream carries: the fixes, and the
/// gaps a daemon restart leaves between them.
public enum WatchEvent: Sendable, Equatable {
    /// An update from the daemon.
    case fix(LocationFix)
    /// The watch's connection ended (the daemon stopped or restarted): the
    /// error the stream would have ended with. The client is resubscribing;
    /// sent once per gap, however many tries it takes.
    case interrupted(LocationError)
    /// Subscribed again, with the same options, after an ``interrupted(_:)``.
    case resumed
}

/// One watch from its first `location.watch` to its end, across the
/// daemon's restarts: the loop behind ``LocationClient/updates(_:)`` and
/// ``LocationClient/watch(_:)``.
///
/// Each subscription lives on one connection. When that connection ends
/// (`daemonUnreachable`), the watch reports the gap and subscribes again
/// with the same options, pausing between failed tries (``pause``, doubled
/// up to ``pauseLimit``), until one is answered; then it reports the
/// resumption and goes on. It ends only when:
/// - its first subscription fails (nothing was ever watched: the caller
///   hears why at once, as before resubscription existed);
/// - the daemon refuses or withdraws it (any error but `daemonUnreachable`);
/// - the client was closed on purpose (``LocationClient/close()``);
/// - resubscription is turned off;
/// - its task is cancelled (the consumer stopped iterating): normally.
struct ResubscribingWatch: Sendable {
    let connection: DaemonConnection
    let options: WatchOptions
    let limits: DaemonConnection.Limits
    let resubscribe: Bool
    let pause: Duration
    let pauseLimit: Duration

    /// Runs the watch, handing each event to `emit`; returns how it ended
    /// (nil: normally, its task cancelled).
    func run(_ emit: @Sendable (WatchEvent) -> Void) async -> LocationError? {
        var everSubscribed = false
        var inGap = false
        var nextPause = pause
        // A close() from now on ends the watch, whenever it comes.
        let closes = await connection.closes
        while !Task.isCancelled {
            let (fixes, continuation) = AsyncThrowingStream<LocationFix, any Error>.makeStream(
                bufferingPolicy: .bufferingNewest(16))
            let watch = WatchStream(continuation)
            continuation.onTermination = { _ in watch.ended() }
            let ending: LocationError
            switch await connection.watch(options, into: watch, within: limits) {
            case .success:
                everSubscribed = true
                nextPause = pause
                if inGap {
                    inGap = false
                    emit(.resumed)
                }
                do {
                    for try await fix in fixes { emit(.fix(fix)) }
                    return nil  // only a cancelled iteration finishes without an error
                } catch let error as LocationError {
                    ending = error
                } catch {
                    ending = .internalError("\(error)")
                }
            case .failure(let error):
                continuation.finish()
                ending = error
            }
            if Task.isCancelled { return nil }
            guard resubscribe, everSubscribed, case .daemonUnreachable = ending,
                ending != DaemonConnection.cancelled, await connection.closes == closes
            else { return ending }
            if !inGap {
                inGap = true
                emit(.interrupted(ending))
            }
            guard (try? await Task.sleep(for: nextPause)) != nil else { return nil }
            nextPause = min(nextPause * 2, pauseLimit)
        }
        return nil
    }
}
