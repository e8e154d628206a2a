import PetSpotSystemd
import ServiceLifecycle

/// Pings systemd's service watchdog (`WATCHDOG=1`) every half timeout while
/// the daemon runs; stops on graceful shutdown.
///
/// The pings come from the same cooperative thread pool that serves
/// clients, so a daemon whose runtime is wedged stops pinging and systemd
/// restarts it (`Restart=on-failure`).
public struct WatchdogService: Service {
    let notifier: SystemdNotifier
    let schedule: WatchdogSchedule

    /// Creates the service.
    /// - Parameters:
    ///   - notifier: where pings go.
    ///   - schedule: the watchdog systemd asked for.
    public init(notifier: SystemdNotifier, schedule: WatchdogSchedule) {
        self.notifier = notifier
        self.schedule = schedule
    }

    /// Pings until graceful shutdown or cancellation, then returns.
    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                notifier.send(.watchdog)
                try await Task.sleep(for: schedule.pingInterval)
            }
        }
    }
}
