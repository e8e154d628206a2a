import Logging
import NIOCore
import NIOPosix
import PetSpotFixHub
import PetSpotLinux
import PetSpotLocation
import PetSpotPOSIX
public import PetSpotSettings
import PetSpotSystemd
import ServiceLifecycle
import UnixSignals

/// The daemon: the socket server, the position source and the SIGHUP
/// reloader, composed into one `ServiceGroup` that stops gracefully on
/// SIGTERM or SIGINT.
///
/// It takes any ``DaemonSource`` (the executable wires the configured source
/// in), so the daemon library never imports gpsd or knows a source's kind.
///
/// Under systemd (``SystemdIntegration``) it serves on the passed socket,
/// announces `READY=1` once serving, `STOPPING=1` when a graceful shutdown
/// begins, pings the watchdog, and brackets SIGHUP reloads with
/// `RELOADING=1`/`READY=1`.
public struct LocationDaemon: Sendable {
    /// `[daemon]`: the socket, its limits and the idle timeout.
    public let settings: DaemonSettings
    public let source: DaemonSource
    public let policy: any AccessPolicy
    public let logger: Logger
    public let registry: ClientRegistry
    /// Where location requests are recorded, when configured.
    public let audit: AuditLog?
    /// What SIGHUP does (e.g. ``ConfigurationReloader/reload()``), returning
    /// whether the new configuration was taken; without one, SIGHUP is
    /// logged and ignored (it never kills the daemon).
    public let onReload: (@Sendable () async -> Bool)?
    /// What systemd passed (``SystemdIntegration/none`` when started by hand).
    public let systemd: SystemdIntegration
    /// Services run beside the daemon's own for its lifetime (the metrics
    /// file writer); they stop with it.
    public var companions: [any Service] = []
    /// The moved-station alarm, when a live source and a static position
    /// are both configured; run as a service, shown in `daemon.status`.
    public var station: StationWatch?
    /// The NMEA socket for desktop software (``NMEAConsumers``, served by the one ``SocketServer``), when configured.
    public var nmea: NMEASettings?

    /// Creates a daemon.
    /// - Parameters:
    ///   - policy: who may see the location (``PolicyEngine``; ``OpenAccess`` authorizes everyone).
    ///   - audit: the audit log.
    ///   - onReload: called on each SIGHUP.
    ///   - systemd: the passed socket, notify socket and watchdog, if any.
    public init(
        settings: DaemonSettings, source: DaemonSource, policy: any AccessPolicy = OpenAccess(), audit: AuditLog? = nil,
        logger: Logger, onReload: (@Sendable () async -> Bool)? = nil, systemd: SystemdIntegration = .none
    ) {
        self.settings = settings
        self.source = source
        self.policy = policy
        self.audit = audit
        self.logger = logger
        self.onReload = onReload
        self.registry = ClientRegistry(
            capacity: settings.maxClients, perUid: settings.maxClientsPerUid, reserved: settings.reservedSlots)
        self.systemd = systemd
    }

    /// The long-running parts.
    /// - Parameters:
    ///   - onReady: called once the socket accepts connections (after `READY=1`).
    ///   - hangups: an already trapping SIGHUP sequence for the reload service.
    public func services(
        onReady: @escaping @Sendable () -> Void = {}, hangups: UnixSignalsSequence? = nil
    )
        -> [any Service]
    {
        // The source's fixes reach watchers loop by loop (WatchFanOut).
        let policy = self.policy
        let fanOut = WatchFanOut(
            group: MultiThreadedEventLoopGroup.singleton,
            authorizationChanges: { policy.authorizationChanges() }, hub: source.hub)
        let logger = self.logger
        // The request path's pages go back once requests stop, as start-up's do.
        let pages = QuietPageRelease(
            after: Self.quietBeforeRelease,
            timer: { delay, then in
                MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: TimeAmount(delay)) { then() }
            },
            released: { Self.logReleased($0, after: "requests stopped", logger: logger) })
        let dispatcher = Dispatcher(
            hub: source.hub, policy: policy, registry: registry, logger: logger, fanOut: fanOut, audit: audit,
            station: station, pages: pages)
        let notifier = systemd.notifier
        let announce: @Sendable () -> Void = {
            notifier.send(.ready(status: "serving"))
            Self.releaseStartupPages(after: "start-up", logger: logger)
            onReady()
        }
        let reloadConfiguration: @Sendable () async -> Bool =
            onReload ?? {
                logger.notice("SIGHUP: nothing to reload")
                return true
            }
        let reload: @Sendable () async -> Bool = {
            let taken = await reloadConfiguration()
            Self.releaseStartupPages(after: "reload", logger: logger)
            return taken
        }
        var services: [any Service] = [
            SocketServer(
                settings: settings, dispatcher: dispatcher, logger: logger, listener: systemd.listener?.fd,
                onReady: announce),
            ReloadService(notifier: notifier, logger: logger, signals: hangups, onReload: reload),
        ]
        services.append(ProducerService(source))
        services.append(fanOut)
        if let station { services.append(station) }
        if let nmea { services.append(SocketServer(nmea: nmea, dispatcher: dispatcher, logger: logger)) }
        services.append(contentsOf: companions)
        if let watchdog = systemd.watchdog, notifier.isEnabled {
            services.append(WatchdogService(notifier: notifier, schedule: watchdog, sleeper: .eventLoops()))
        }
        // Last, so the first to hear of a graceful shutdown.
        services.append(StoppingNotificationService(notifier: notifier))
        return services
    }

    /// The quiet period of ``QuietPageRelease``: the pages serving touched
    /// are given back once a whole period passes without a client's line,
    /// one to two minutes after the last. A kiosk visit's requests come
    /// within seconds of each other; a minute or two after the last, the
    /// station is at rest.
    public static let quietBeforeRelease: Duration = .seconds(60)

    /// Drops the mappings of code and constants that start-up (or a reload's
    /// configuration parsing) touched once (``StartupPages``).
    private static func releaseStartupPages(after phase: String, logger: Logger) {
        logReleased(StartupPages.release(), after: phase, logger: logger)
    }

    /// Logs what a release gave back (a fleet reads it beside the memory figures).
    private static func logReleased(_ released: StartupPages.Released, after phase: String, logger: Logger) {
        logger.info(
            "released resident pages",
            metadata: [
                "after": "\(phase)", "mappings": "\(released.mappings)",
                "KiB": "\(released.residentBytes / 1024)",
            ])
    }

    /// The services of ``services(onReady:hangups:)`` in the `ServiceGroup`
    /// that ``run(signals:onReady:)`` runs; tests run it in-process with no
    /// signals and stop it with `triggerGracefulShutdown()`.
    /// - Parameters:
    ///   - signals: the signals that start a graceful shutdown.
    ///   - hangups: an already trapping SIGHUP sequence for the reload service.
    ///   - onReady: called once the socket accepts connections.
    public func serviceGroup(
        signals: [UnixSignal], hangups: UnixSignalsSequence? = nil, onReady: @escaping @Sendable () -> Void = {}
    ) -> ServiceGroup {
        ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services(onReady: onReady, hangups: hangups).map {
                    ServiceGroupConfiguration.ServiceConfiguration(service: $0)
                },
                gracefulShutdownSignals: signals,
                logger: logger))
    }

    /// Runs until SIGTERM/SIGINT (or cancellation), then stops cleanly.
    /// - Parameters:
    ///   - signals: the signals that start a graceful shutdown.
    ///   - onReady: called once the socket accepts connections.
    public func run(
        signals: [UnixSignal] = [.sigterm, .sigint], onReady: @escaping @Sendable () -> Void = {}
    ) async throws {
        try await Self.onEventLoops {
            // Trap SIGHUP before anything can announce readiness: a reload
            // request right after READY=1 must never meet the default action.
            let hangups = await UnixSignalsSequence(trapping: .sighup)
            try await serviceGroup(signals: signals, hangups: hangups, onReady: onReady).run()
        }
    }

    /// Runs `group` (from ``serviceGroup(signals:hangups:onReady:)``) as
    /// ``run(signals:onReady:)`` runs its own: on the event loops. Tests run
    /// the daemon in-process with this, so they schedule as it does.
    public static func run(_ group: ServiceGroup) async throws {
        try await onEventLoops { try await group.run() }
    }

    /// Runs `body` with the event loops as the task executor preference,
    /// which the service group's child tasks and the actors they visit
    /// inherit (``EventLoopGroupTaskExecutor``).
    static func onEventLoops(_ body: () async throws -> Void) async throws {
        try await withTaskExecutorPreference(EventLoopGroupTaskExecutor.daemon) { try await body() }
    }
}
