import PetSpotSystemd
import ServiceLifecycle

/// Tells systemd `STOPPING=1` as soon as a graceful shutdown begins.
///
/// It is the last service of the group, so it is the first to hear of the
/// shutdown (a `ServiceGroup` shuts services down in reverse order).
public struct StoppingNotificationService: Service {
    let notifier: SystemdNotifier

    /// Creates the service.
    public init(notifier: SystemdNotifier) { self.notifier = notifier }

    /// Waits for graceful shutdown (or cancellation), sends `STOPPING=1`, returns.
    public func run() async throws {
        try? await gracefulShutdown()
        notifier.send(.stopping(status: "stopping"))
    }
}
