/// The service watchdog systemd asked for (`WatchdogSec=`), read from
/// `WATCHDOG_USEC` and `WATCHDOG_PID` as `sd_watchdog_enabled(3)` does.
///
/// The daemon pings (`WATCHDOG=1`) at ``pingInterval``, half the timeout,
/// which is what systemd recommends.
public struct WatchdogSchedule: Sendable, Hashable {
    /// The timeout after which systemd considers the service hung.
    public let timeout: Duration

    /// Creates a schedule for a timeout.
    public init(timeout: Duration) { self.timeout = timeout }

    /// How often to ping: half the timeout.
    public var pingInterval: Duration { timeout / 2 }

    /// Reads the watchdog settings.
    ///
    /// - Parameters:
    ///   - environment: the process environment.
    ///   - pid: this process's id; when `WATCHDOG_PID` is set it must match
    ///     (the watchdog is meant for another process otherwise).
    /// - Returns: the schedule, or `nil` when no watchdog is set, or the
    ///   values are not positive integers, or the pid is another process's.
    public init?(environment: [String: String], pid: Int32) {
        guard let text = environment["WATCHDOG_USEC"], let microseconds = UInt64(text), microseconds > 0,
            microseconds <= UInt64(Int64.max)
        else { return nil }
        if let owner = environment["WATCHDOG_PID"], !owner.isEmpty {
            guard let owner = Int32(owner), owner == pid else { return nil }
        }
        self.timeout = .microseconds(Int64(microseconds))
    }
}
