import PetSpotLocation
import PetSpotSystemd
import ServiceLifecycle

/// Pings systemd's service watchdog (`WATCHDOG=1`) every half timeout while
/// the daemon runs; stops on graceful shutdown.
///
/// The pings come from the event loops that serve clients (their timers,
/// ``Sleeper/eventLoops(_:)``, and a task preferring them), so a daemon
/// whose loops are wedged stops pinging and systemd restarts it
/// (`Restart=on-failure`).
public struct WatchdogService: Service {
    let notifier: SystemdNotifier
    let schedule: WatchdogSchedule
    let sleeper: Sleeper

    /// Creates the service.
    /// - Parameters:
    ///   - notifier: where pings go.
    ///   - schedule: the watchdog systemd asked for.
    ///   - sleeper: where the pause between pings is timed.
    public init(notifier: SystemdNotifier, schedule: WatchdogSchedule, sleeper: Sleeper) {
        self.notifier = notifier
        self.schedule = schedule
        self.sleeper = sleeper
    }

    /// Pings until graceful shutdown or cancellation, then returns.
    public func run() async throws {
        try? await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                notifier.send(.watchdog)
                try await sleeper.sleep(for: schedule.pingInterval)
            }
        }
    }
}
