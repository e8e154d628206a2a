import NIOCore
import NIOPosix
import PetSpotLocation

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

/// Runs Swift Concurrency jobs on the daemon's event loops: the task
/// executor preference of every daemon task that is not a connection's
/// (the service group and its services, the configuration load, a reload).
///
/// Swift's default executor is libdispatch's global pool, and the first
/// job that pool runs starts its workqueue monitor: a timer that wakes the
/// process every second for as long as it lives. The daemon gives every
/// task it starts a preference for the loops and times every wait on them
/// (``PetSpotLocation/Sleeper/eventLoops(_:)``), so nothing reaches that
/// pool and an idle daemon is not woken at all (IdleWakeupTests).
///
/// A job runs on the loop it is enqueued from when that is one of the
/// group's (no hop), else on the group's next loop.
public final class EventLoopGroupTaskExecutor: TaskExecutor {
    let group: MultiThreadedEventLoopGroup

    /// The executor over NIO's shared loops, which the daemon serves on.
    public static let daemon = EventLoopGroupTaskExecutor(.singleton)

    init(_ group: MultiThreadedEventLoopGroup) { self.group = group }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        group.any().execute { job.runSynchronously(on: executor) }
    }
}

extension Sleeper {
    /// Times each wait with a scheduled task on an event loop of `group`
    /// (the one the caller runs on when it is one of them): no thread and
    /// no dispatch timer of its own. The daemon's sleeper.
    ///
    /// The sleeping task resumes on its own executor, so a daemon task must
    /// also prefer the loops (``EventLoopGroupTaskExecutor``), or its wake-up
    /// still goes through Swift's global pool.
    public static func eventLoops(_ group: MultiThreadedEventLoopGroup = .singleton) -> Sleeper {
        Sleeper { deadline in
            let timer = group.any().scheduleTask(in: TimeAmount(ContinuousClock.now.duration(to: deadline))) {}
            do {
                try await withTaskCancellationHandler {
                    try await timer.futureResult.get()
                } onCancel: {
                    timer.cancel()
                }
            } catch {
                // Cancelled (or the loops shut down, which ends the daemon anyway).
                throw CancellationError()
            }
        }
    }
}
