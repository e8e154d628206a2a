import Logging
import PetSpotSystemd
import ServiceLifecycle
import UnixSignals

/// Reloads on SIGHUP (`systemctl reload`, `ExecReload=kill -HUP`), telling
/// systemd `RELOADING=1` (with `MONOTONIC_USEC`) before and `READY=1` after,
/// with `STATUS=` saying how it went.
///
/// What a reload does is the `onReload` closure's business; it returns
/// whether the new configuration was taken. A failed reload keeps the
/// running configuration (SPEC §4), so the service is ready either way.
public struct ReloadService: Service {
    let notifier: SystemdNotifier
    let logger: Logger
    let signals: UnixSignalsSequence?
    let onReload: @Sendable () async -> Bool

    /// Creates the service.
    /// - Parameters:
    ///   - notifier: where `RELOADING=1`/`READY=1` go.
    ///   - logger: logs each reload.
    ///   - signals: an already trapping SIGHUP sequence; pass one created
    ///     before readiness is announced, so a SIGHUP right after `READY=1`
    ///     cannot hit the default action (exit). `nil` traps in ``run()``.
    ///   - onReload: performs the reload; `true` when the new configuration is in force.
    public init(
        notifier: SystemdNotifier, logger: Logger, signals: UnixSignalsSequence? = nil,
        onReload: @escaping @Sendable () async -> Bool
    ) {
        self.notifier = notifier
        self.logger = logger
        self.signals = signals
        self.onReload = onReload
    }

    /// Serves SIGHUPs until graceful shutdown.
    public func run() async throws {
        let hangups: UnixSignalsSequence
        if let signals {
            hangups = signals
        } else {
            hangups = await UnixSignalsSequence(trapping: .sighup)
        }
        // Not `hangups.cancelOnGracefulShutdown()`: its merge starts an
        // unstructured task, which would run on Swift's global pool
        // (LocationDaemonProgram says why the daemon keeps off it).
        await cancelWhenGracefulShutdown {
            for await _ in hangups { await reload() }
        }
    }

    /// One reload, bracketed by `RELOADING=1` and `READY=1`.
    func reload() async {
        logger.notice("reloading on SIGHUP")
        notifier.send(
            .reloading(monotonicMicroseconds: SystemdNotifier.monotonicMicroseconds(), status: "reloading"))
        let taken = await onReload()
        let status = taken ? "serving; configuration reloaded" : "serving; reload failed, previous configuration kept"
        if taken {
            logger.notice("reload finished")
        } else {
            logger.error("reload failed: keeping the running configuration")
        }
        notifier.send(.ready(status: status))
    }
}
