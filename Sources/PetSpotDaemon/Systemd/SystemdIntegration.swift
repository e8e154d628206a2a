import Glibc
public import PetSpotSystemd

/// What systemd handed the daemon: where to send state notifications, the
/// watchdog it expects, and the listening socket of socket activation.
///
/// Everything is optional: started by hand, the daemon gets ``none`` and
/// binds its own socket and notifies nobody.
public struct SystemdIntegration: Sendable {
    /// Where `READY=1`, `RELOADING=1`, `STOPPING=1`, `WATCHDOG=1` go.
    public var notifier: SystemdNotifier
    /// The watchdog (`WatchdogSec=`), when set.
    public var watchdog: WatchdogSchedule?
    /// The passed listening socket (`petspot-locationd.socket`), when set.
    public var listener: ListenFDs.Descriptor?
    /// How many descriptors were passed (`LISTEN_FDS`), adopted or not.
    public var passedDescriptors: Int

    /// Creates an integration from explicit parts.
    public init(
        notifier: SystemdNotifier = .disabled, watchdog: WatchdogSchedule? = nil,
        listener: ListenFDs.Descriptor? = nil, passedDescriptors: Int = 0
    ) {
        self.notifier = notifier
        self.watchdog = watchdog
        self.listener = listener
        self.passedDescriptors = passedDescriptors
    }

    /// No systemd: bind the socket, notify nobody.
    public static let none = SystemdIntegration()

    /// The name `petspot-locationd.socket` gives its socket (`FileDescriptorName=`).
    public static let socketName = "locationd.sock"

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC`/`WATCHDOG_PID` and takes the
    /// socket-activation descriptors (unsetting `LISTEN_*`).
    ///
    /// Call once, early in `main`. Only a listening Unix stream socket is
    /// adopted (preferring the one named ``socketName``); other passed
    /// descriptors are left alone.
    /// - Parameter environment: the process environment.
    public static func fromEnvironment(_ environment: [String: String]) -> SystemdIntegration {
        let passed = ListenFDs.take(environment: environment)
        return SystemdIntegration(
            notifier: SystemdNotifier(environment: environment),
            watchdog: WatchdogSchedule(environment: environment, pid: getpid()),
            listener: passed?.listeningUnixStream(preferredName: socketName),
            passedDescriptors: passed?.descriptors.count ?? 0)
    }
}
