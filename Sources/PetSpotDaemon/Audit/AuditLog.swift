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
    private let logger: Logger
    private var descriptor: Int32 = -1
    private var size = 0
    private var lastFailure: String?

    /// Creates a log writing to `path`, rotating at `maxBytes`.
    public init(path: String, maxBytes: Int, logger: Logger) {
        self.path = path
        self.maxBytes = max(1024, maxBytes)
        self.logger = logger
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Appends one record.
    public func record(_ record: AuditRecord) {
        let line = record.jsonLine
        do {
            try openIfNeeded()
            if size > 0 && size + line.count > maxBytes { try rotate() }
            try append(line)
            lastFailure = nil
        } catch {
            let text = "\(error)"
            if text != lastFailure {
                logger.error("cannot write the audit log", metadata: ["file": "\(path)", "error": "\(text)"])
                lastFailure = text
            }
            if descriptor >= 0 {
                close(descriptor)
                descriptor = -1
            }
        }
    }

    private func openIfNeeded() throws(AtomicFile.Failure) {
        guard descriptor < 0 else { return }
        if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
            try AtomicFile.makeDirectory(String(path[..<slash]))
        }
        let opened = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard opened >= 0 else { throw AtomicFile.Failure(step: "open", path: path, code: errno) }
        fchmod(opened, 0o600)
        var status = stat()
        size = fstat(opened, &status) == 0 ? Int(status.st_size) : 0
        descriptor = opened
    }

    private func rotate() throws(AtomicFile.Failure) {
        close(descriptor)
        descriptor = -1
        guard rename(path, path + ".1") == 0 else { throw AtomicFile.Failure(step: "rotate", path: path, code: errno) }
        try openIfNeeded()
    }

    private func append(_ line: [UInt8]) throws(AtomicFile.Failure) {
        var offset = 0
        while offset < line.count {
            let written = line[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                throw AtomicFile.Failure(step: "write", path: path, code: errno)
            }
            offset += written
        }
        size += line.count
    }
}
