import Logging
import ServiceLifecycle
import UnixSignals

/// Turns SIGHUP into configuration reloads: each SIGHUP calls `onReload`
/// (one at a time, in order) until graceful shutdown.
///
/// Kept apart so readiness notifications (RELOADING=1 / READY=1) can wrap
/// the call without touching the reload logic.
public struct ReloadService: Service {
    /// What a SIGHUP does.
    public let onReload: @Sendable () async -> Void

    /// Creates the service.
    public init(onReload: @escaping @Sendable () async -> Void) {
        self.onReload = onReload
    }

    /// Runs until graceful shutdown or cancellation.
    public func run() async throws {
        let signals = await UnixSignalsSequence(trapping: [.sighup])
        for await _ in signals.cancelOnGracefulShutdown() {
            await onReload()
        }
    }
}
