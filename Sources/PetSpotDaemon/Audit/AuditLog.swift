import Glibc
import FoundationEssentials
import Logging
import Metrics
import NIOCore
import PetSpotPOSIX
import PetSpotLocation
import PetSpotProtocol
import Synchronization

/// The audit log (SPEC §6): one JSON object per line in `daemon.audit_log`,
/// mode 0600 (its directory created 0700 when missing), rotated by size.
///
/// Rotation: when the next line would take the file past `maxBytes`, the
/// generations shift (`PATH.1` → `PATH.2` …, `PATH` → `PATH.1`) and a new
/// file starts; `generations` old files are kept (`daemon.audit_log_generations`,
/// default 5). When the oldest one is dropped, the new file's first line
/// says so (`audit.rotated`, with the evicted file in `reason`): history is
/// never lost silently.
///
/// Repeated refusals: a client refused over and over (the same uid, method,
/// status and reason) cannot push everyone else's history out. The first
/// refusal of a minute is recorded; identical ones within the following
/// ``repeatWindow`` are only counted, and one summary record with
/// `repeated: N` ("N more refusals") is written when the window is over.
/// Authorization changes (``isAuthorizationChange(_:)``: reloads, the
/// statuses they move, agent changes) carry a reason too, but each is
/// written whole: they are rare, and who was moved when is their point.
///
/// Durability: every record is written (`write(2)`) before the answer it
/// records leaves the daemon, so a daemon crash loses nothing. Records of
/// the `location.get` answers one event loop produces in one pass are
/// written together, with one `write(2)`, before any of those answers
/// (``append(_:)``, ``AuditBatch``); every other record is written on its
/// own. Records of authorization changes (a decision made, a reset, a
/// reload, an agent change) and of a station's move
/// (``isAuthorizationChange(_:)``) are flushed to disk (`fdatasync`)
/// before the answer. Other records are flushed every ``syncEvery``
/// records on the daemon's ``DiskThread``, never by the event loop writing
/// them: a sync takes milliseconds on a real disk, and every answer of both
/// loops would wait for it. A power loss can lose at most ``syncEvery`` other records, plus
/// those written while one sync runs.
///
/// A failing write is logged (once per kind of failure), counted
/// (`petspot_audit_write_failures_total`: records that could not be
/// written) and never stops the daemon.
public final class AuditLog: Sendable {
    /// The file's path.
    public let path: String
    /// The size that starts a rotation.
    public let maxBytes: Int
    /// How many rotated files are kept.
    public let generations: Int
    /// How long identical refusals are counted instead of recorded.
    public let repeatWindow: Duration
    /// At most this many records between two `fdatasync`s.
    public static let syncEvery = 1024
    /// Most distinct refusals being counted at once; past it, all are summarised.
    static let maximumRepeatKeys = 1024
    private let logger: Logger
    private let failures: Counter
    /// The open file, behind a lock: a request answered on its event loop
    /// records without a task or an actor hop.
    private let file = Mutex(OpenFile())

    private struct OpenFile: Sendable {
        var descriptor: Int32 = -1
        var size = 0
        var lastFailure: String?
        var unsynced = 0
        /// A background sync of this file is running (``DiskThread``).
        var syncing = false
        var lastSync: EventLoopFuture<Int32>?
        var repeats: [RepeatKey: Repeat] = [:]
        /// The earliest end of a window in ``repeats``.
        var nextWindowEnd: ContinuousClock.Instant?
    }

    /// What makes two refusals identical.
    private struct RepeatKey: Hashable, Sendable {
        var uid: UInt32
        var method: String
        var status: AuthorizationStatus?
        var reason: String?
    }

    /// A refusal being counted.
    private struct Repeat: Sendable {
        var windowEnd: ContinuousClock.Instant
        var suppressed: Int
        var sample: AuditRecord
    }

    /// Creates a log writing to `path`, rotating at `maxBytes`, keeping `generations` old files.
    public init(
        path: String, maxBytes: Int, generations: Int = 5, repeatWindow: Duration = .seconds(60), logger: Logger,
        metrics: any MetricsFactory = MetricsSystem.factory
    ) {
        failures = Counter(label: "petspot_audit_write_failures_total", factory: metrics)
        self.path = path
        self.maxBytes = max(1024, maxBytes)
        self.generations = max(1, generations)
        self.repeatWindow = repeatWindow
        self.logger = logger
    }

    deinit {
        file.withLock { if $0.descriptor >= 0 { close($0.descriptor) } }
    }

    /// Appends one record at once, from any thread or task: records from
    /// all threads are appended whole and in the order they take the lock.
    public func record(_ record: AuditRecord) {
        file.withLock { file in
            let now = ContinuousClock.now
            if let end = file.nextWindowEnd, end <= now { summarise(&file, endedBy: now) }
            if record.reason != nil, !Self.isAuthorizationChange(record) {
                let key = RepeatKey(
                    uid: record.client.uid, method: record.method, status: record.status, reason: record.reason)
                if file.repeats[key] != nil {
                    file.repeats[key]?.suppressed += 1
                    return
                }
                if file.repeats.count >= Self.maximumRepeatKeys { summarise(&file, endedBy: nil) }
                let end = now + repeatWindow
                file.repeats[key] = Repeat(windowEnd: end, suppressed: 0, sample: record)
                file.nextWindowEnd = min(file.nextWindowEnd ?? end, end)
            }
            appendRecord(record, to: &file)
        }
    }

    /// Appends several records' lines (``AuditRecord/jsonLine``) with one
    /// `write(2)` (more only when a rotation falls among them), from any
    /// thread: the lines stay together and in order. For records that are
    /// neither refusals (they are not rate-limited here) nor authorization
    /// changes (they are not flushed to disk at once): the answers of
    /// ``AuditBatch``.
    public func append(_ lines: AuditLines) {
        guard !lines.isEmpty else { return }
        file.withLock { file in
            if let end = file.nextWindowEnd, end <= ContinuousClock.now { summarise(&file, endedBy: .now) }
            appendLines(lines.bytes, ends: lines.ends, syncNow: false, to: &file)
        }
    }

    /// Writes the summaries of counted refusals whose window ended by `now`
    /// (all of them when `now` is `nil`).
    public func flushRepeats() {
        file.withLock { summarise(&$0, endedBy: nil) }
    }

    private func summarise(_ file: inout OpenFile, endedBy now: ContinuousClock.Instant?) {
        var next: ContinuousClock.Instant?
        for (key, entry) in file.repeats {
            if let now, entry.windowEnd > now {
                next = min(next ?? entry.windowEnd, entry.windowEnd)
                continue
            }
            file.repeats[key] = nil
            guard entry.suppressed > 0 else { continue }
            let sample = entry.sample
            appendRecord(
                AuditRecord(
                    method: sample.method, client: sample.client, status: sample.status, accuracy: sample.accuracy,
                    decidedBy: sample.decidedBy, reason: sample.reason, targetUid: sample.targetUid,
                    repeated: entry.suppressed),
                to: &file)
        }
        file.nextWindowEnd = next
    }

    private func appendRecord(_ record: AuditRecord, to file: inout OpenFile) {
        let line = record.jsonLine
        appendLines(line, ends: CollectionOfOne(line.count), syncNow: Self.isAuthorizationChange(record), to: &file)
    }

    /// Appends whole lines (each ends at one of `ends` in `bytes`), rotating
    /// before the line that would take the file past ``maxBytes``.
    private func appendLines(
        _ bytes: [UInt8], ends: some Collection<Int>, syncNow: Bool, to file: inout OpenFile
    ) {
        do {
            try openIfNeeded(&file)
            // Lines [start, previous) wait to be written to the current file.
            var start = 0
            var previous = 0
            for end in ends {
                if file.size + (previous - start) > 0 && file.size + (end - start) > maxBytes {
                    try append(bytes[start..<previous], to: &file)
                    try rotate(&file)
                    start = previous
                }
                previous = end
            }
            try append(bytes[start..<previous], to: &file)
            file.unsynced += ends.count
            if syncNow {
                fdatasync(file.descriptor)
                file.unsynced = 0
            } else if file.unsynced >= Self.syncEvery {
                syncInBackground(&file)
            }
            file.lastFailure = nil
        } catch {
            failures.increment(by: ends.count)
            let text = "\(error)"
            if text != file.lastFailure {
                logger.error("cannot write the audit log", metadata: ["file": "\(path)", "error": "\(text)"])
                file.lastFailure = text
            }
            if file.descriptor >= 0 {
                close(file.descriptor)
                file.descriptor = -1
            }
        }
    }

    /// Whether `record` changes who may see the location, and so is flushed
    /// to disk at once: a decision made now (not a request that found one, or
    /// failed), a reset, the end of an allow-once grant, a reload, an agent
    /// change, a rotation. All are rare and bounded: a client asking over and
    /// over never makes the daemon sync per request.
    static func isAuthorizationChange(_ record: AuditRecord) -> Bool {
        switch record.method {
        case RPCMethod.authorizationRequest.rawValue:
            return record.reason == nil && ["agent", "prompt", "allowOnce"].contains(record.decidedBy ?? "")
        case RPCMethod.authorizationReset.rawValue, AuditEvent.allowOnceEnded.rawValue:
            return record.reason == nil
        case RPCMethod.agentRegister.rawValue:
            return record.reason == nil
        case AuditEvent.agentReplaced.rawValue, AuditEvent.agentRemoved.rawValue,
            AuditEvent.policyReloaded.rawValue, AuditEvent.policyStatusChanged.rawValue,
            AuditEvent.decisionsQuarantined.rawValue, AuditEvent.decisionsRestored.rawValue,
            AuditEvent.auditRotated.rawValue, AuditEvent.stationMoved.rawValue, AuditEvent.stationReturned.rawValue:
            return true
        default:
            return false
        }
    }

    /// The path of rotated generation `number` (1 is the newest).
    public func generationPath(_ number: Int) -> String { "\(path).\(number)" }

    private func openIfNeeded(_ file: inout OpenFile) throws(AtomicFile.Failure) {
        guard file.descriptor < 0 else { return }
        if let directory = PathName.directory(of: path), directory != "/" {
            try AtomicFile.makeDirectory(directory)
        }
        let opened = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard opened >= 0 else { throw AtomicFile.Failure(step: "open", path: path, code: errno) }
        fchmod(opened, 0o600)
        var status = stat()
        file.size = fstat(opened, &status) == 0 ? Int(status.st_size) : 0
        file.descriptor = opened
    }

    /// Hands the file's unsynced records to the ``DiskThread`` (a duplicate of
    /// the descriptor, so a rotation may close the file meanwhile). While a
    /// sync runs, the count goes on and the next record after it asks again.
    private func syncInBackground(_ file: inout OpenFile) {
        guard !file.syncing else { return }
        let duplicate = dup(file.descriptor)
        guard duplicate >= 0 else {
            fdatasync(file.descriptor)
            file.unsynced = 0
            return
        }
        file.syncing = true
        file.unsynced = 0
        file.lastSync = DiskThread.run {
            fdatasync(duplicate)
            close(duplicate)
            return duplicate
        }.always { [self] _ in
            self.file.withLock { $0.syncing = false }
        }
    }

    /// The last background sync asked for, with the duplicate descriptor it closes (tests wait on it).
    var lastBackgroundSync: EventLoopFuture<Int32>? { file.withLock { $0.lastSync } }

    private func rotate(_ file: inout OpenFile) throws(AtomicFile.Failure) {
        // The rotated file's last records reach the disk in the background, as
        // any others; here, when the disk thread is still busy with an earlier
        // sync (the file is about to be closed: there is no later chance).
        if file.unsynced > 0 {
            if file.syncing { fdatasync(file.descriptor) } else { syncInBackground(&file) }
        }
        close(file.descriptor)
        file.descriptor = -1
        file.unsynced = 0
        let oldest = generationPath(generations)
        var evicted: (path: String, bytes: Int)?
        var status = stat()
        if lstat(oldest, &status) == 0 { evicted = (oldest, Int(status.st_size)) }
        for number in stride(from: generations - 1, through: 1, by: -1) {
            _ = rename(generationPath(number), generationPath(number + 1))
        }
        guard rename(path, generationPath(1)) == 0 else {
            throw AtomicFile.Failure(step: "rotate", path: path, code: errno)
        }
        try openIfNeeded(&file)
        if let evicted {
            let daemon = ClientIdentity.daemonProcess
            let line = AuditRecord(
                method: AuditEvent.auditRotated.rawValue, client: daemon,
                reason: "evicted \(evicted.path) (\(evicted.bytes) bytes): the oldest of \(generations) generations"
            ).jsonLine
            try append(line[...], to: &file)
            fdatasync(file.descriptor)
        }
    }

    private func append(_ line: ArraySlice<UInt8>, to file: inout OpenFile) throws(AtomicFile.Failure) {
        guard !line.isEmpty else { return }
        let descriptor = file.descriptor
        let written = line.withUnsafeBytes { raw in
            Result { () throws(SystemCallError) in try Descriptor.writeAll(descriptor, raw) }
        }
        guard case .failure(let error) = written else {
            file.size += line.count
            return
        }
        throw AtomicFile.Failure(step: "write", path: path, code: error.code)
    }
}
