import NIOCore

/// Runs Swift Concurrency jobs on one NIO event loop: the task executor
/// preference of a connection's tasks.
///
/// With it, a client's read loop, its per-request child tasks and the
/// actors they visit (which run on the preferred executor when free) all run
/// on the thread that already owns the connection's socket. A request then
/// costs no thread switch at all; without it, each request bounced between
/// the event loops and the concurrency pool (on 2 cores, context switches
/// were the largest cost in the profile).
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    init(_ eventLoop: any EventLoop) { self.eventLoop = eventLoop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        eventLoop.execute { job.runSynchronously(on: executor) }
    }
}
