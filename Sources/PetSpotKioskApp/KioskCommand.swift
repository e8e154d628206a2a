import ArgumentParser
import FoundationEssentials
import Glibc
import Hummingbird
import Logging
import PetSpotConfiguration
import PetSpotDelivery
import PetSpotKiosk
import PetSpotKioskConfiguration
import PetSpotLinux
import PetSpotLocationClient
import PetSpotMetricsFile
import PetSpotOutbox
import PetSpotPOSIX
import PetSpotPhotoCleaning
import PetSpotReport
import PetSpotSettings
import ServiceLifecycle

/// `petspot-kiosk`: the kiosk station's web app (SPEC §7 "The kiosk station").
struct KioskCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "petspot-kiosk",
        abstract: "Serve the found-pet report as a touch web app for the station's kiosk browser.",
        discussion: """
            Listens on [kiosk] listen (default 127.0.0.1:8080, loopback) and serves until
            SIGTERM or SIGINT. The GPS button asks petspot-locationd at [location] socket;
            submitted reports go into the outbox at [outbox] path, and with a [delivery]
            table the sender in this process delivers them to the backend (SPEC §8).

            Photo drafts live only while a visit lasts, under $CACHE_DIRECTORY (systemd's
            CacheDirectory=), else $XDG_CACHE_HOME, else ~/.cache: PetSpot/ReportFoundPet/.
            Drafts left by an earlier run are deleted at start. The process sets its umask
            to 0077 at start: what it creates is its user's alone.

            --check-config validates the configuration, prints it in full and exits 0, or
            prints every error with its key and exits 1.

            Examples:
              petspot-kiosk --config /etc/petspot/kiosk.toml
              petspot-kiosk --config config/kiosk.toml --check-config
            """)

    @Option(name: .long, help: "The configuration file.")
    var config: String = KioskConfigurationLoader.defaultPath

    @Flag(name: .customLong("check-config"), help: "Validate the configuration, print it in full, and exit.")
    var checkConfig = false

    @Option(name: .long, help: "Override kiosk.listen (HOST:PORT).")
    var listen: String?

    @Option(name: .long, help: "Override location.socket (the daemon's socket).")
    var socket: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
        if let listen, Self.hostAndPort(listen) == nil { throw ValidationError("--listen must be HOST:PORT") }
    }

    func run() async throws {
        // Everything this process creates holds a stranger's report (drafts,
        // the outbox): owner only, whatever umask it was started with, as
        // the systemd unit's UMask=0077 does for the service.
        umask(0o077)
        var configuration: KioskConfiguration
        do {
            configuration = try KioskConfigurationLoader.load(path: config)
        } catch {
            StandardStreams.writeError("petspot-kiosk: invalid configuration\n\(error.description)\n")
            throw ExitCode(1)
        }
        if let listen, let (host, port) = Self.hostAndPort(listen) {
            configuration.kiosk.host = host
            configuration.kiosk.port = port
        }
        if let socket { configuration.location.socket = socket }
        if checkConfig {
            print(configuration.renderTOML(), terminator: "")
            return
        }

        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "petspot.kiosk")
        // Photo buffers get their own mappings, returned when freed, not kept in malloc's arenas.
        StartupPages.returnLargeBlocksWhenFreed()
        // Before anything creates a counter (visits, delivery attempts): they bind to this backend.
        let metricsRegistry = configuration.metrics.textfile.map { _ in MetricsTextfile.bootstrap() }
        let outbox: Outbox
        do {
            outbox = try Outbox.open(directory: configuration.outbox.path)
        } catch {
            logger.critical(
                "cannot open the outbox", metadata: ["path": "\(configuration.outbox.path)", "error": "\(error)"])
            throw ExitCode(1)
        }
        for note in outbox.openingNotes { logger.notice("outbox: \(note)") }
        // When the last visit ends, at most once a minute (a visitor can end visits at will);
        // one ending inside that minute is served at its end.
        let idleRelease = ThrottledPageRelease(
            every: .seconds(60), released: { Self.logReleased($0, after: "the last visit", logger: logger) })
        let dependencies = KioskDependencies(
            location: LocationClient(socketPath: configuration.location.socket), reports: outbox,
            draftsBase: Self.cacheDirectory(), gpsTimeout: configuration.location.gpsTimeout,
            stationStatus: {
                do {
                    return StationStatus(outbox: .success(try await outbox.summary()))
                } catch {
                    return StationStatus(outbox: .failure(.init(reason: "the outbox cannot be read: \(error)")))
                }
            },
            whenIdle: {
                guard let released = idleRelease.releaseIfDue() else { return }
                Self.logReleased(released, after: "the last visit", logger: logger)
            })
        var services: [any Service] = []
        if let delivery = configuration.delivery {
            if BearerToken.isWorldReadable(delivery.tokenFile) {
                logger.warning("the token file \(delivery.tokenFile) is readable by every user: chmod 0640 it")
            }
            services.append(DeliverySender(outbox: outbox, settings: delivery, logger: logger))
        } else {
            logger.notice("no [delivery] table: reports are queued in the outbox and not sent")
        }
        if let path = configuration.metrics.textfile, let metricsRegistry {
            let gauges = OutboxGauges(outbox: outbox)
            services.append(
                MetricsTextfile(
                    path: path, interval: configuration.metrics.interval, registry: metricsRegistry, logger: logger
                ) { await gauges.refresh() })
        }
        let app = try await KioskApplication.build(
            settings: configuration.kiosk, dependencies: dependencies, services: services, logger: logger)
        let host = configuration.kiosk.host.contains(":") ? "[\(configuration.kiosk.host)]" : configuration.kiosk.host
        Self.logReleased(StartupPages.release(), after: "start-up", logger: logger)
        logger.notice("serving on http://\(host):\(configuration.kiosk.port)/")
        try await app.runService()
        try? outbox.close()
    }

    /// Logs what a release of the pages start-up or the visits just ended
    /// touched, and of malloc's free memory (``StartupPages``), gave back:
    /// an idle station's memory is what serving needs, not its history.
    static func logReleased(_ released: StartupPages.Released, after phase: String, logger: Logger) {
        logger.info(
            "released resident pages",
            metadata: [
                "after": "\(phase)", "mappings": "\(released.mappings)", "KiB": "\(released.residentBytes / 1024)",
            ])
    }

    /// Where photo drafts go: `$CACHE_DIRECTORY`, `$XDG_CACHE_HOME`, else `~/.cache`.
    static func cacheDirectory() -> URL {
        let environment = ProcessInfo.processInfo.environment
        if let systemd = environment["CACHE_DIRECTORY"]?.split(separator: ":").first, systemd.hasPrefix("/") {
            return URL(fileURLWithPath: String(systemd), isDirectory: true)
        }
        return PhotoDraftCache.baseDirectory(environment: environment)
    }

    static func hostAndPort(_ text: String) -> (String, Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return host.isEmpty ? nil : (host, port)
    }
}
