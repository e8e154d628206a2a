import Dispatch

/// One ``Database`` connection behind a serial dispatch queue: every use
/// runs on that queue, in the order asked, so the connection is never used
/// by two threads at once. The async calls wait off Swift's cooperative
/// threads (a write may wait out another process's lock, up to the busy
/// timeout), the synchronous ones block their caller.
final class DatabaseQueue: @unchecked Sendable {
    // @unchecked: `database` is touched only on `queue`.
    private let database: Database
    private let queue: DispatchQueue
    private let queueKey = DispatchSpecificKey<Void>()

    init(database: Database, label: String) {
        self.database = database
        self.queue = DispatchQueue(label: label)
        queue.setSpecific(key: queueKey, value: ())
    }

    /// Runs `body` on the queue, blocking the caller.
    func sync<T, Failure: Error>(_ body: (Database) throws(Failure) -> T) throws(Failure) -> T {
        precondition(DispatchQueue.getSpecific(key: queueKey) == nil, "DatabaseQueue.sync inside itself would deadlock")
        let result: Result<T, Failure> = queue.sync {
            do throws(Failure) { return .success(try body(database)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Runs `body` on the queue; the calling task waits without holding a thread.
    func async<T: Sendable, Failure: Error>(
        _ body: @escaping @Sendable (Database) throws(Failure) -> T
    ) async throws(Failure) -> T {
        let result: Result<T, Failure> = await withCheckedContinuation { continuation in
            queue.async {
                do throws(Failure) {
                    continuation.resume(returning: .success(try body(self.database)))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }

    /// Closes the connection after the work already queued.
    func close() {
        queue.sync { database.close() }
    }
}
