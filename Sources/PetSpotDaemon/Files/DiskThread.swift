import NIOCore
import NIOPosix

/// The daemon's one thread for disk work that waits on the disk: writing
/// remembered decisions (`DecisionStore`, fsynced) and flushing the audit
/// log (`AuditLog`, `fdatasync`). No event loop or pool thread waits for a
/// disk; work runs in the order it was submitted.
enum DiskThread {
    private static let pool: NIOThreadPool = {
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        return pool
    }()

    /// Queues `work`, after everything queued before it; the future completes with its result.
    static func run<Result: Sendable>(
        _ work: @escaping @Sendable () throws -> Result
    ) -> EventLoopFuture<Result> {
        pool.runIfActive(eventLoop: MultiThreadedEventLoopGroup.singleton.any(), work)
    }
}
