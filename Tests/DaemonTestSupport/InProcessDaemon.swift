import Foundation
import Logging
import PetSpotConfiguration
import PetSpotDaemon
import PetSpotDaemonApp
import PetSpotLocation
import PetSpotPolicy
import PetSpotSettings
import PetSpotStaticSource
import ServiceLifecycle
import Synchronization
import TestSupport

/// petspot-locationd run inside the test process, as Hummingbird's tests run
/// their application: the daemon's services (``LocationDaemon/serviceGroup(signals:hangups:onReady:)``,
/// assembled from a configuration by the same initializer the executable
/// uses) in a `ServiceGroup`, serving on a Unix socket in a fresh private
/// folder (mkdtemp, mode 0700); stopped by a graceful shutdown.
///
/// The test gives the configuration as values (``DaemonConfiguration``: its
/// `[source]` and `[policy]`); the harness sets `[daemon]` (socket, state
/// directory and audit log inside the folder) and writes the whole as TOML
/// (``DaemonConfiguration/renderTOML()``) to `locationd.toml` only for
/// SIGHUP to re-read. Only the static source is built here (the
/// executable's source factory, which knows gpsd, is not a library).
///
/// Set `PETSPOT_TEST_LOG=debug` (or another level) to see the daemon's log.
public final class InProcessDaemon: Sendable {
    /// The private folder the socket and state live in.
    public let directory: TemporaryDirectory
    /// The daemon's socket.
    public let socketPath: String
    /// The configuration the daemon runs, with the harness's `[daemon]`.
    public let configuration: DaemonConfiguration
    private let group: ServiceGroup
    private let running: Task<Result<Void, any Error>, Never>
    private let stopped = Mutex(false)

    /// Why the daemon could not be started.
    public struct StartFailure: Error, CustomStringConvertible {
        public var description: String
    }

    private init(
        directory: TemporaryDirectory, configuration: DaemonConfiguration, group: ServiceGroup,
        running: Task<Result<Void, any Error>, Never>
    ) {
        self.directory = directory
        self.socketPath = configuration.daemon.socket
        self.configuration = configuration
        self.group = group
        self.running = running
    }

    /// The `[daemon]` settings the harness uses in `directory`.
    public static func daemonSettings(in directory: TemporaryDirectory) -> DaemonSettings {
        DaemonSettings(
            socket: directory.file("locationd.sock"), socketMode: 0o600, stateDirectory: directory.file("state"),
            auditLog: directory.file("state/audit.jsonl"))
    }

    /// A configuration with the static source at `position` and `policy`
    /// (`[daemon]` is the harness's).
    public static func configuration(at position: StaticSourceSettings, policy: Policy) -> DaemonConfiguration {
        DaemonConfiguration(source: SourceSettings(kind: .static, static: position), policy: policy)
    }

    /// Starts the daemon `configuration` describes, with the harness's
    /// `[daemon]` in `directory`, and returns once the socket accepts
    /// connections (the server's `onReady`).
    /// - Throws: the daemon's refusal to start, or the error the service
    ///   group stopped with before serving.
    public static func start(
        _ configuration: DaemonConfiguration, in directory: TemporaryDirectory
    ) async throws -> InProcessDaemon {
        var configuration = configuration
        configuration.daemon = daemonSettings(in: directory)
        // Only what SIGHUP re-reads: the daemon starts from the values.
        let path = try directory.write("locationd.toml", configuration.renderTOML())
        let logger = Self.logger()
        let daemon = try LocationDaemon(
            configuration: configuration, source: try source(configuration.source), reloadingFrom: path,
            logger: logger)
        // true: serving; false: the group ended first.
        let (events, event) = AsyncStream<Bool>.makeStream()
        let group = daemon.serviceGroup(signals: [], onReady: { event.yield(true) })
        let running = Task<Result<Void, any Error>, Never> {
            defer {
                event.yield(false)
                event.finish()
            }
            do {
                // On the event loops, as the daemon's own run is.
                try await LocationDaemon.run(group)
                return .success(())
            } catch {
                return .failure(error)
            }
        }
        var iterator = events.makeAsyncIterator()
        guard await iterator.next() == true else {
            if case .failure(let error) = await running.value { throw error }
            throw StartFailure(description: "the daemon's services stopped before serving")
        }
        return InProcessDaemon(directory: directory, configuration: configuration, group: group, running: running)
    }

    /// Runs `body` with a daemon started from `configuration`; stops the
    /// daemon afterwards, whatever happens.
    /// - Parameter directory: where the daemon lives; by default a fresh
    ///   folder, removed afterwards (a given one is left to its owner).
    public static func with<T>(
        _ configuration: DaemonConfiguration, in directory: TemporaryDirectory? = nil,
        _ body: (InProcessDaemon) async throws -> T
    ) async throws -> T {
        let fresh = directory == nil ? try TemporaryDirectory(prefix: "psd") : nil
        defer { fresh?.remove() }
        let daemon = try await start(configuration, in: directory ?? fresh!)
        let result: T
        do {
            result = try await body(daemon)
        } catch {
            try? await daemon.stop()
            throw error
        }
        try await daemon.stop()
        return result
    }

    /// Starts a graceful shutdown (as SIGTERM does) and waits until every
    /// service has returned; rethrows what the group stopped with. A second
    /// call only waits.
    public func stop() async throws {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        if first { await group.triggerGracefulShutdown() }
        try await running.value.get()
    }

    /// The static source `[source.static]` describes, built as the daemon builds it.
    static func source(_ settings: SourceSettings) throws -> DaemonSource {
        guard settings.kind == .static else {
            throw StartFailure(description: "the in-process harness builds only the static source")
        }
        return try SourceFactory.make(settings, logger: logger())
    }

    static func logger() -> Logger {
        let setting = ProcessInfo.processInfo.environment["PETSPOT_TEST_LOG"]
        guard let level = setting.flatMap({ Logger.Level(rawValue: $0) }) else {
            return Logger(label: "petspot.locationd.test", factory: { _ in SwiftLogNoOpLogHandler() })
        }
        var logger = Logger(label: "petspot.locationd.test", factory: { StreamLogHandler.standardError(label: $0) })
        logger.logLevel = level
        return logger
    }
}

/// Runs blocking work (a ``RawSocket`` read) on a thread of its own, never on
/// the concurrency pool the in-process daemon's tasks need.
public func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
