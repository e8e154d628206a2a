import Logging
import PetSpotFixHub
import PetSpotLocation
import ServiceLifecycle
import UnixSignals

/// The daemon: the socket server, the position source and the SIGHUP
/// reloader, composed into one `ServiceGroup` that stops gracefully on
/// SIGTERM or SIGINT.
///
/// It takes any ``DaemonSource`` (the executable wires the gpsd source in;
/// tests pass the mock), so the daemon library never imports gpsd.
public struct LocationDaemon: Sendable {
    public let settings: ServerSettings
    public let source: DaemonSource
    public let policy: any AccessPolicy
    public let logger: Logger
    public let registry: ClientRegistry
    /// Where location requests are recorded, when configured.
    public let audit: AuditLog?
    /// What SIGHUP does (e.g. ``ConfigurationReloader/reload()``); without
    /// one, SIGHUP is logged and ignored.
    public let onReload: (@Sendable () async -> Void)?

    /// Creates a daemon.
    /// - Parameters:
    ///   - policy: who may see the location (``PolicyEngine``; ``OpenAccess`` authorizes everyone).
    ///   - audit: the audit log.
    ///   - onReload: called on each SIGHUP.
    public init(
        settings: ServerSettings, source: DaemonSource, policy: any AccessPolicy = OpenAccess(), audit: AuditLog? = nil,
        logger: Logger, onReload: (@Sendable () async -> Void)? = nil
    ) {
        self.settings = settings
        self.source = source
        self.policy = policy
        self.audit = audit
        self.logger = logger
        self.onReload = onReload
        self.registry = ClientRegistry(capacity: settings.maxClients)
    }

    /// The long-running parts.
    /// - Parameter onReady: called once the socket accepts connections.
    public func services(onReady: @escaping @Sendable () -> Void = {}) -> [any Service] {
        let dispatcher = Dispatcher(
            source: source.service, policy: policy, registry: registry, logger: logger, audit: audit)
        let logger = self.logger
        var services: [any Service] = [
            SocketServer(settings: settings, dispatcher: dispatcher, logger: logger, onReady: onReady),
            ReloadService(onReload: onReload ?? { logger.notice("SIGHUP: nothing to reload") }),
        ]
        if let producer = source.producer, let hub = source.hub {
            services.append(ProducerService(producer: producer, hub: hub))
        }
        return services
    }

    /// Runs until SIGTERM/SIGINT (or cancellation), then stops cleanly.
    /// - Parameters:
    ///   - signals: the signals that start a graceful shutdown.
    ///   - onReady: called once the socket accepts connections.
    public func run(
        signals: [UnixSignal] = [.sigterm, .sigint], onReady: @escaping @Sendable () -> Void = {}
    ) async throws {
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: services(onReady: onReady).map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) },
                gracefulShutdownSignals: signals,
                logger: logger))
        try await group.run()
    }
}
