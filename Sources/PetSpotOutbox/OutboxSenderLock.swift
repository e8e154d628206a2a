import Glibc
import FoundationEssentials
import PetSpotPOSIX

/// One sender per outbox: an exclusive `flock` on `<outbox>/sender.lock`,
/// held while the sender runs and released by the kernel when its process
/// ends however it ends (`kill -9` included). Whoever holds it may treat
/// reports left `delivering` as abandoned.
public final class OutboxSenderLock: Sendable {
    private let descriptor: Int32
    /// The lock file.
    public let path: String

    private init(descriptor: Int32, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    /// Takes the lock without waiting.
    /// - Returns: the lock, or `nil` when another process holds it.
    /// - Throws: ``OutboxError/io(_:)`` when the lock file cannot be opened.
    public static func acquire(outboxDirectory: String) throws(OutboxError) -> OutboxSenderLock? {
        let path = "\(outboxDirectory)/sender.lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw DurableFiles.failure("cannot open \(path)") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        // The holder's pid, for messages ("another sender is running (pid N)").
        let text = Array("\(getpid())\n".utf8)
        if ftruncate(descriptor, 0) == 0 {
            _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        }
        return OutboxSenderLock(descriptor: descriptor, path: path)
    }

    /// The pid written by the current holder, if readable.
    public static func holder(outboxDirectory: String) -> Int32? {
        guard let bytes = try? DurableFiles.readSmallFile("\(outboxDirectory)/sender.lock", limit: 64) else {
            return nil
        }
        return Int32(String(decoding: bytes, as: UTF8.self).trimmingWhitespaceAndNewlines())
    }

    deinit {
        flock(descriptor, LOCK_UN)
        close(descriptor)
    }
}
