#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import Logging
import NIOConcurrencyHelpers

/// The audit log (SPEC §6): one JSON object per line in `daemon.audit_log`,
/// mode 0600 (its directory created 0700 when missing), rotated by size.
///
/// When the next line would take the file past `maxBytes`, the file is
/// renamed to `PATH.1` (replacing an older `PATH.1`) and a new one started,
/// so at most about twice `maxBytes` is kept. A failing write is logged
/// (once per kind of failure) and never stops the daemon.
public actor AuditLog {
    /// The file's path.
    public nonisolated let path: String
    /// The size that starts a rotation.
    public nonisolated let maxBytes: Int
    private nonisolated let logger: Logger
    /// The open file, behind a lock rather than the actor so that a request
    /// answered on its event loop records without a task (``recordNow(_:)``).
    private nonisolated let file = NIOLockedValueBox(OpenFile())

    private struct OpenFile: Sendable {
        var descriptor: Int32 = -1
        var size = 0
        var lastFailure: String?
    }

    /// Creates a log writing to `path`, rotating at `maxBytes`.
    public init(path: String, maxBytes: Int, logger: Logger) {
        self.path = path
        self.maxBytes = max(1024, maxBytes)
        self.logger = logger
    }

    deinit {
        file.withLockedValue { if $0.descriptor >= 0 { close($0.descriptor) } }
    }

    /// Appends one record.
    public func record(_ record: AuditRecord) { recordNow(record) }

    /// Appends one record at once, from any thread: records from all
    /// threads are appended whole and in the order they take the lock.
    public nonisolated func recordNow(_ record: AuditRecord) {
        let line = record.jsonLine
        file.withLockedValue { file in
            do {
                try openIfNeeded(&file)
                if file.size > 0 && file.size + line.count > maxBytes { try rotate(&file) }
                try append(line, to: &file)
                file.lastFailure = nil
            } catch {
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
    }

    private nonisolated func openIfNeeded(_ file: inout OpenFile) throws(AtomicFile.Failure) {
        guard file.descriptor < 0 else { return }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try AtomicFile.makeDirectory(String(path[..<slash]))
        }
        let opened = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard opened >= 0 else { throw AtomicFile.Failure(step: "open", path: path, code: errno) }
        fchmod(opened, 0o600)
        var status = stat()
        file.size = fstat(opened, &status) == 0 ? Int(status.st_size) : 0
        file.descriptor = opened
    }

    private nonisolated func rotate(_ file: inout OpenFile) throws(AtomicFile.Failure) {
        close(file.descriptor)
        file.descriptor = -1
        guard rename(path, path + ".1") == 0 else { throw AtomicFile.Failure(step: "rotate", path: path, code: errno) }
        try openIfNeeded(&file)
    }

    private nonisolated func append(_ line: [UInt8], to file: inout OpenFile) throws(AtomicFile.Failure) {
        var offset = 0
        while offset < line.count {
            let written = line[offset...].withUnsafeBytes { write(file.descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw AtomicFile.Failure(step: "write", path: path, code: errno)
            }
            offset += written
        }
        file.size += line.count
    }
}
