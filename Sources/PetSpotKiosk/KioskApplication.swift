import FoundationEssentials
import Hummingbird
import Logging
import PetSpotKioskConfiguration
import ServiceLifecycle

/// The kiosk web app: one function builds the router, one the application.
public enum KioskApplication {
    /// The router with every route and middleware, and the visit store it uses.
    ///
    /// Middleware order: security headers (every answer, errors included),
    /// then the visit (cookie; a visit is opened only by `POST /start`), then
    /// the form and its CSRF token (POST).
    public static func buildRouter(
        settings: KioskSettings, dependencies: KioskDependencies, pages: PageRenderer, store: VisitStore,
        refusals: LocationRefusals = LocationRefusals(), peers: StationPeers? = nil,
        logger: Logger = Logger(label: "petspot-kiosk")
    ) -> Router<KioskRequestContext> {
        let router = Router(context: KioskRequestContext.self)
        router.add(middleware: SecurityHeadersMiddleware())
        router.add(middleware: VisitMiddleware(store: store))
        router.add(middleware: FormMiddleware(pages: pages, defaultLanguage: settings.language))
        KioskRoutes(
            store: store, pages: pages,
            builder: PageBuilder(idleReset: settings.idleReset, photoSources: settings.photoSources),
            dependencies: dependencies,
            defaultLanguage: settings.language, refusals: refusals, logger: logger
        ).register(on: router)
        AdminRoutes(
            pages: pages, status: dependencies.stationStatus, store: store, refusals: refusals, peers: peers
        ).register(on: router)
        return router
    }

    /// The store of visits for `settings`.
    public static func makeStore(settings: KioskSettings, dependencies: KioskDependencies, logger: Logger) -> VisitStore
    {
        VisitStore(
            idleReset: settings.idleReset, draftsBase: dependencies.draftsBase, clock: dependencies.clock,
            logger: logger, whenIdle: dependencies.whenIdle)
    }

    /// The application: the HTTP server on `settings.host:port`, serving
    /// only `settings.allowedUsers` (``StationPeers``), and the idle sweeper.
    ///
    /// Drafts left by an earlier run are deleted before it serves.
    /// - Parameters:
    ///   - services: more services to run alongside (e.g. the delivery sender).
    public static func build(
        settings: KioskSettings, dependencies: KioskDependencies, services: [any Service] = [],
        logger: Logger = Logger(label: "petspot-kiosk")
    ) async throws -> some ApplicationProtocol {
        let pages = try await PageRenderer.load()
        let store = makeStore(settings: settings, dependencies: dependencies, logger: logger)
        store.removeLeftoverDrafts()
        let peers = StationPeers.resolving(settings.allowedUsers, logger: logger)
        let router = buildRouter(
            settings: settings, dependencies: dependencies, pages: pages, store: store, peers: peers, logger: logger)
        return Application(
            router: router,
            server: .station(peers: peers),
            // A stranger's burst of connections is refused at accept, but it passes through the listen queue
            // first: with Hummingbird's 256 a burst of 1,500 overflowed it, and a visitor's connection then
            // waited a second for its SYN to be sent again (the station soak's only slow requests).
            configuration: .init(
                address: .hostname(settings.host, port: settings.port), serverName: "petspot-kiosk",
                backlog: KioskLimits.listenBacklog),
            services: [IdleSweeper(store: store, interval: IdleSweeper.interval(for: settings.idleReset))] + services,
            logger: logger)
    }
}

/// Ends idle visits on time (deleting their drafts) even when nobody
/// makes a request: every `interval` until graceful shutdown.
public struct IdleSweeper: Service {
    let store: VisitStore
    let interval: Duration

    public init(store: VisitStore, interval: Duration) {
        self.store = store
        self.interval = interval
    }

    /// A tenth of the idle time, between 0.2 s and 1 s.
    public static func interval(for idleReset: Duration) -> Duration {
        min(.seconds(1), max(.milliseconds(200), idleReset / 10))
    }

    /// Sweeps until cancelled or shut down; returns then.
    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let interval = self.interval
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            } catch {
                return
            }
            store.sweep()
        }
    }
}
