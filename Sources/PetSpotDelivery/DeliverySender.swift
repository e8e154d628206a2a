import AsyncHTTPClient
import FoundationEssentials
import PetSpotPOSIX
import Logging
import Metrics
import NIOCore
import PetSpotLocation
import PetSpotOutbox
import ServiceLifecycle
import Synchronization

/// Delivers the outbox's reports to the PetSpot backend (SPEC §8): a
/// `Service` for `petspot-kiosk`'s service group, and ``drain(within:)``
/// for `petspot-report send --once`.
///
/// `maxInFlight` workers each take the oldest due report (the outbox marks
/// it `delivering` in a transaction, so no two take the same one), upload it
/// and record the verdict: delivered (2xx/409), retried with capped
/// exponential backoff and jitter (408, 429 honouring `Retry-After`, 5xx,
/// network errors, timeouts), or rejected (other 4xx; kept, never retried
/// automatically, and never in the way of the next report). Only one sender
/// runs per outbox (``OutboxSenderLock``); the one that holds the lock puts
/// reports a killed sender left `delivering` back to pending, and the
/// `Idempotency-Key` makes that second upload harmless.
public final class DeliverySender: Service, Sendable {
    /// How the sender works.
    /// What ``drain(within:)`` left behind.
    public struct DrainResult: Sendable, Hashable {
        /// Reports still pending (or in flight) at the end.
        public var undelivered: Int
        /// Counts after the pass.
        public var summary: OutboxSummary
    }

    private let outbox: Outbox
    private let settings: DeliverySettings
    private let client: HTTPClient
    private let ownsClient: Bool
    private let logger: Logger
    private let clock: any DeliveryClock
    private let wakeup = WakeupSignal()
    private let lastPurge = Mutex<Date?>(nil)
    /// `petspot_delivery_attempts_total{outcome}`: attempts by what the
    /// backend's answer meant: `delivered`, `retry` (no answer, 408/429/5xx),
    /// `rejected` (other 4xx), `interrupted` (cut short by the stop, due again at the next start).
    private let attempts: [String: Counter]

    /// - Parameters:
    ///   - outbox: the queue.
    ///   - settings: `[delivery]`: endpoint, token file, timeouts, backoff.
    ///   - httpClient: the process's shared client; `nil` makes one that the
    ///     sender shuts down when ``run()`` or ``drain(within:)`` ends.
    ///   - logger: where outcomes go (never with personal data).
    ///   - clock: the time (tests run backoff faster).
    public init(
        outbox: Outbox, settings: DeliverySettings, httpClient: HTTPClient? = nil,
        logger: Logger = Logger(label: "petspot.delivery"), clock: any DeliveryClock = SystemDeliveryClock(),
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        var attempts: [String: Counter] = [:]
        for outcome in ["delivered", "retry", "rejected", "interrupted"] {
            attempts[outcome] = Counter(
                label: "petspot_delivery_attempts_total", dimensions: [("outcome", outcome)], factory: metrics)
        }
        self.attempts = attempts
        self.outbox = outbox
        self.settings = settings
        self.logger = logger
        self.clock = clock
        if let httpClient {
            client = httpClient
            ownsClient = false
        } else {
            client = HTTPClient(
                eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: Self.clientConfiguration(settings)
            )
            ownsClient = true
        }
    }

    /// async-http-client's settings for the sender: no redirects followed
    /// (``AnnouncementUploader`` follows same-origin 307/308 itself), the
    /// system's CAs (the default TLS configuration), timeouts from the
    /// configuration, no hidden retries of failed connections.
    public static func clientConfiguration(_ delivery: DeliverySettings) -> HTTPClient.Configuration {
        var settings = HTTPClient.Configuration()
        settings.redirectConfiguration = .disallow
        let timeout = Int64(delivery.timeout.seconds * 1000)
        settings.timeout = HTTPClient.Configuration.Timeout(
            connect: .milliseconds(min(timeout, 15_000)), read: .milliseconds(timeout))
        settings.decompression = .disabled
        // A refused or failed connection fails the attempt at once: the
        // sender's own backoff retries it, and the operator sees why.
        settings.connectionPool.retryConnectionEstablishment = false
        return settings
    }

    // MARK: Running

    /// Delivers until cancelled or a graceful shutdown: waits for the sender
    /// lock (another sender may hold it), then keeps the queue moving.
    public func run() async throws {
        do {
            try await runHoldingLock()
        } catch {
            await shutDownClient()
            throw error
        }
        await shutDownClient()
    }

    private func runHoldingLock() async throws {
        var lock: OutboxSenderLock?
        var waiting = false
        while lock == nil {
            lock = try OutboxSenderLock.acquire(outboxDirectory: outbox.directory)
            if lock == nil {
                if !waiting {
                    logger.warning(
                        "\(DeliveryError.anotherSender(pid: OutboxSenderLock.holder(outboxDirectory: outbox.directory), lockFile: outbox.directory + "/sender.lock")); waiting for it to stop"
                    )
                    waiting = true
                }
                try await Task.sleep(for: .seconds(2))
                try Task.checkCancellation()
                if Task.isShuttingDownGracefully { return }
            }
        }
        try await withGracefulShutdownHandler {
            try await self.work(until: nil)
        } onGracefulShutdown: {
            self.wakeup.signal()
        }
        withExtendedLifetime(lock) {}
    }

    /// Delivers what is pending, retrying within `within` seconds, then returns.
    /// - Throws: ``DeliveryError/anotherSender(pid:lockFile:)`` when another sender runs.
    public func drain(within: TimeInterval) async throws -> DrainResult {
        do {
            let result = try await drainHoldingLock(within: within)
            await shutDownClient()
            return result
        } catch {
            await shutDownClient()
            throw error
        }
    }

    private func drainHoldingLock(within: TimeInterval) async throws -> DrainResult {
        guard let lock = try OutboxSenderLock.acquire(outboxDirectory: outbox.directory) else {
            throw DeliveryError.anotherSender(
                pid: OutboxSenderLock.holder(outboxDirectory: outbox.directory),
                lockFile: outbox.directory + "/sender.lock")
        }
        try await work(until: clock.now.addingTimeInterval(within))
        withExtendedLifetime(lock) {}
        return DrainResult(undelivered: try await outbox.undeliveredCount(), summary: try await outbox.summary())
    }

    /// Wakes idle workers (a report was queued in this process, or retried).
    public func wake() { wakeup.signal() }

    private func work(until stop: Date?) async throws {
        let released = try await outbox.releaseInFlight(now: clock.now)
        if released > 0 { logger.notice("\(released) report(s) left in flight by a stopped sender are pending again") }
        await purgeIfDue(force: true)
        let token = outbox.observeEnqueues { [wakeup] in wakeup.signal() }
        defer { outbox.removeObserver(token) }
        let workers = max(1, settings.maxInFlight)
        await withDiscardingTaskGroup { group in
            for _ in 0..<workers {
                group.addTask { await self.worker(until: stop) }
            }
        }
    }

    private var isStopping: Bool { Task.isCancelled || Task.isShuttingDownGracefully }

    /// Takes due reports one at a time until stopped (or, draining, until
    /// nothing can be done before `stop`).
    private func worker(until stop: Date?) async {
        while !isStopping {
            let generation = wakeup.generation
            let now = clock.now
            if let stop, now >= stop { return }
            await purgeIfDue(force: false)
            do {
                if let report = try await outbox.claimNext(now: now) {
                    await deliver(report)
                    wakeup.signal()
                    continue
                }
                let next = try await outbox.nextDue()
                var wakeAt = now.addingTimeInterval(settings.pollInterval.seconds)
                if let stop {
                    if try await outbox.undeliveredCount() == 0 { return }
                    if let next, next > stop { return }
                    wakeAt = min(stop, next ?? wakeAt)
                } else if let next {
                    wakeAt = min(wakeAt, max(now, next))
                }
                await wakeup.wait(since: generation, until: wakeAt, clock: clock)
            } catch {
                logger.error("outbox: \(error)")
                await wakeup.wait(
                    since: generation, until: now.addingTimeInterval(settings.pollInterval.seconds), clock: clock)
            }
        }
    }

    /// One attempt at one report, and its verdict recorded. The backend's
    /// words (its reference, messages, a redirect's `Location`) are logged
    /// through `TerminalText.escaped`: `petspot-report send` logs to a terminal.
    private func deliver(_ report: ClaimedReport) async {
        let id = report.id.uuidString.lowercased()
        let verdict: DeliveryVerdict
        var status: Int?
        do {
            let token = try BearerToken.load(from: settings.tokenFile)
            let uploader = AnnouncementUploader(
                client: client, endpoint: settings.endpoint, timeout: settings.timeout.seconds,
                responseLimit: settings.responseLimit)
            let clock = self.clock
            (verdict, status) = await uploader.upload(report, token: token, now: { clock.now })
        } catch {
            verdict = .retry(after: nil, reason: error.description)
        }
        let now = clock.now
        do {
            if isStopping, case .retry = verdict {
                // Cut short by the shutdown: not the backend's fault; due again at the next start.
                try await outbox.markAbandoned(report.id, at: now)
                attempts["interrupted"]?.increment()
                return
            }
            switch verdict {
            case .delivered(let reference, let note):
                try await outbox.markDelivered(
                    report.id, status: status ?? 0, reference: reference, note: note, at: now)
                attempts["delivered"]?.increment()
                logger.info(
                    "delivered \(id) (HTTP \(status ?? 0)\(reference.map { ", backend reference \(TerminalText.escaped($0))" } ?? ""), attempt \(report.attempt))"
                )
            case .retry(let after, let reason):
                let backoff = RetryBackoff(initial: settings.retryInitial.seconds, cap: settings.retryMax.seconds)
                let delay = after ?? backoff.delay(attempt: report.attempt)
                try await outbox.markRetry(
                    report.id, status: status, error: reason, next: now.addingTimeInterval(delay))
                attempts["retry"]?.increment()
                logger.warning(
                    "attempt \(report.attempt) of \(id) failed: \(TerminalText.escaped(reason)); next in \(Self.seconds(delay))"
                )
            case .rejected(let reason):
                try await outbox.markRejected(report.id, status: status, error: reason, at: now)
                attempts["rejected"]?.increment()
                logger.error(
                    "the backend rejected \(id): \(TerminalText.escaped(reason)); kept in the outbox, not retried (petspot-report outbox retry \(id))"
                )
            }
        } catch {
            logger.error("outbox: cannot record the outcome of \(id): \(error)")
        }
    }

    private func purgeIfDue(force: Bool) async {
        let now = clock.now
        let due = lastPurge.withLock { last in
            guard force || last.map({ now.timeIntervalSince($0) >= settings.purgeInterval.seconds }) ?? true else {
                return false
            }
            last = now
            return true
        }
        guard due else { return }
        do {
            let purged = try await outbox.purgeDelivered(
                before: now.addingTimeInterval(-settings.retention.seconds), now: now)
            if purged > 0 {
                logger.info("deleted the photo and personal data of \(purged) delivered report(s) past retention")
            }
        } catch {
            logger.error("outbox: retention purge failed: \(error)")
        }
    }

    private func shutDownClient() async {
        guard ownsClient else { return }
        try? await client.shutdown()
    }

    static func seconds(_ interval: TimeInterval) -> String {
        interval < 10 ? String(cFormat: "%.1f s", interval) : "\(Int(interval.rounded())) s"
    }
}
