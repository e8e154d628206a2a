import ArgumentParser
import FoundationEssentials
import Glibc
import Logging
import PetSpotConfiguration
import PetSpotDaemon
import PetSpotLocation
import PetSpotMetricsFile
import PetSpotPOSIX
import PetSpotSettings
import PetSpotSystemd

/// `petspot-locationd`: the PetSpot location daemon (started from main.swift).
public struct LocationDaemonCommand: AsyncParsableCommand, Sendable {
    public static let configuration = CommandConfiguration(
        commandName: "petspot-locationd",
        abstract: "Serve this device's location to local clients over a Unix socket (JSON-RPC 2.0).",
        discussion: """
            Positions come from gpsd (a hardware receiver), a fixed configured position
            (kiosks), or a scripted simulation (no hardware). Who may see them is decided
            by the [policy] section, from the kernel's identity of each client.

            Configuration: TOML, see config/locationd.toml and the README. Unknown keys
            are errors. --check-config prints the effective configuration (every key,
            defaults filled in) and exits 0, or prints every error with its key and exits 1.

            Signals: SIGTERM/SIGINT stop cleanly (exit 0, socket removed). SIGHUP re-reads
            the configuration file and puts its [policy] in force for every connection
            (a file that fails to load keeps the running configuration; the log says why).

            systemd: under Type=notify the daemon sends READY=1 once serving, RELOADING=1
            and READY=1 around a SIGHUP reload, STOPPING=1 on shutdown, and WATCHDOG=1
            every half WatchdogSec. Started by petspot-locationd.socket it serves on the
            passed socket (LISTEN_FDS/LISTEN_PID) and leaves the socket file to systemd;
            started by hand it binds daemon.socket itself.

            Files: /etc/petspot/locationd.toml (configuration), /run/petspot/locationd.sock
            (the socket), /var/lib/petspot-locationd (remembered decisions, audit log).

            Examples:
              petspot-locationd --demo                     # simulated source, private temporary state
              petspot-locationd --config /etc/petspot/locationd.toml
              petspot-locationd --config my.toml --check-config
            """,
        version: DaemonVersion.current)

    @Option(name: .long, help: "The configuration file.")
    var config: String = ConfigurationLoader.defaultPath

    @Flag(name: .long, help: "Run on the embedded demo configuration: simulated source, no hardware, no config file.")
    var demo = false

    @Flag(name: .customLong("check-config"), help: "Validate the configuration, print it in full, and exit.")
    var checkConfig = false

    @Option(name: .long, help: "Override daemon.socket (the socket path).")
    var socket: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"

    public init() {}

    public func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical")
        }
    }

    public func run() async throws { try await serve() }

    /// Loads the configuration and runs the daemon until it stops.
    public func serve() async throws {
        // The one place the daemon's umask is set, before any service runs:
        // whatever it creates is private until given its exact mode (the
        // sockets' configured modes, the socket directory's 0755; files
        // are created with explicit modes). Services never change it, so
        // two of them starting together cannot race on it.
        umask(0o177)
        var configuration: DaemonConfiguration
        do {
            configuration = demo ? try DemoConfiguration.make() : try ConfigurationLoader.load(path: config)
        } catch {
            StandardError.write("petspot-locationd: invalid configuration\n\(error)\n")
            throw ExitCode(1)
        }
        // The demo's private folder goes when the daemon stops, however it stops.
        let demoFolder = demo ? configuration.daemon.stateDirectory : nil
        defer { if let demoFolder { try? FileManager.default.removeItem(atPath: demoFolder) } }
        if let socket { configuration.daemon.socket = socket }
        if checkConfig {
            // What the start would read besides the file (the scenario) fails here, not at start.
            do {
                try SourceFactory.check(configuration.source)
            } catch {
                StandardError.write("petspot-locationd: invalid configuration\n\(error)\n")
                throw ExitCode(1)
            }
            print(configuration.renderTOML(), terminator: "")
            for warning in configuration.warnings() { StandardError.write("warning: \(warning)\n") }
            return
        }

        // Writes to a vanished client must fail with EPIPE, never kill the daemon.
        signal(SIGPIPE, SIG_IGN)
        // A parent may hand down a mask blocking the signals we serve on
        // (test runners and some supervisors do): SIGHUP reloads, SIGTERM
        // and SIGINT stop, so they must get through.
        var served = sigset_t()
        sigemptyset(&served)
        for number in [SIGHUP, SIGTERM, SIGINT] { sigaddset(&served, number) }
        pthread_sigmask(SIG_UNBLOCK, &served, nil)
        // Taken first: unsets LISTEN_* so nothing started later inherits them.
        let systemd = SystemdIntegration.fromEnvironment(ProcessInfo.processInfo.environment)
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = Logger.Level(rawValue: logLevel) ?? .info
            return handler
        }
        let logger = Logger(label: "petspot.locationd")
        // Before anything creates a counter: they bind to the factory bootstrapped here.
        let metricsRegistry = configuration.metrics.textfile.map { _ in MetricsTextfile.bootstrap() }
        if systemd.listener == nil, systemd.passedDescriptors > 0 {
            logger.warning(
                "systemd passed descriptors, but none is a listening Unix stream socket; binding daemon.socket",
                metadata: ["LISTEN_FDS": "\(systemd.passedDescriptors)"])
        }
        // What --check-config warns about, in the log too (rules that will not do what they seem to).
        for warning in configuration.warnings(daemonRunsAsRoot: geteuid() == 0) {
            logger.warning("configuration: \(warning)")
        }
        let fileLimit = FileLimit.raiseToHardLimit()
        if let fileLimit, fileLimit < UInt64(configuration.daemon.maxClients) + 64 {
            logger.warning(
                "open-file limit below max_clients; raise LimitNOFILE",
                metadata: ["limit": "\(fileLimit)", "max_clients": "\(configuration.daemon.maxClients)"])
        }
        let source: DaemonSource
        do {
            source = try SourceFactory.make(configuration.source, logger: logger)
        } catch {
            logger.critical("cannot start the position source", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        }
        // The state directory (and the audit log's, when elsewhere) must be
        // the daemon's own before anything in them is read or written.
        var daemon: LocationDaemon
        do {
            daemon = try LocationDaemon(
                configuration: configuration, source: source, reloadingFrom: demo ? nil : config, logger: logger,
                systemd: systemd)
        } catch {
            logger.critical("refusing an untrusted state directory", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        }
        if let path = configuration.metrics.textfile, let metricsRegistry {
            let gauges = DaemonGauges(hub: source.hub, registry: daemon.registry)
            daemon.companions.append(
                MetricsTextfile(
                    path: path, interval: configuration.metrics.interval, registry: metricsRegistry, logger: logger,
                    sleeper: .eventLoops()
                ) { await gauges.refresh() })
        }
        do {
            try await daemon.run()
        } catch {
            logger.critical("stopped on error", metadata: ["error": "\(error)"])
            throw ExitCode(1)
        }
    }
}

/// Writes to file descriptor 2, unbuffered (no Foundation `FileHandle`:
/// the daemon links only FoundationEssentials).
enum StandardError {
    static func write(_ text: String) {
        // Nothing to do when standard error itself fails.
        try? Descriptor.writeAll(2, Array(text.utf8))
    }
}
