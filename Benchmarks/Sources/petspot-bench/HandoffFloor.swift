import CEpoll
import Foundation
import Glibc

/// The watch path's floor with the daemon's thread shape: ``RelayFloor``'s
/// relay, split the way the daemon splits it. One reader thread reads gpsd
/// (the same blocking `poll` and `read`, the same `"time":"` scan, no JSON
/// parse) and hands each TPV's line to every writer that has a watcher:
/// onto the writer's queue under a lock, with an `eventfd` write to wake it
/// when its queue was empty (as NIO's `EventLoop.execute` from another
/// thread does). Each writer thread, an event loop's stand-in, waits in
/// `epoll_wait` on its `eventfd`, reads it, takes the queued lines and
/// writes each to each of its watchers with plain blocking `write(2)`
/// calls. Watchers are dealt to the writers in turn, as NIO deals accepted
/// channels to its loops. Nothing else: what the floor costs more than
/// ``RelayFloor`` is the thread hand-off alone, the least a relay shaped
/// like the daemon (a reader thread and one event loop per core) can do.
enum HandoffFloor {
    /// A writer thread's state shared with the reader, under `lock`: how
    /// many watchers it has, those added since it last looked, the lines
    /// handed to it; and the `eventfd` that wakes it.
    private final class Writer: @unchecked Sendable {
        let lock = NSLock()
        let wakeup = eventfd(0, Int32(EFD_CLOEXEC))
        var watching = 0
        var added: [Int32] = []
        var queued: [[UInt8]] = []

        /// Adds a watcher (on the reader thread; the next line reaches it).
        func add(_ fd: Int32) {
            lock.lock()
            added.append(fd)
            watching += 1
            lock.unlock()
        }

        /// Queues `line` if this writer has a watcher, and wakes the writer
        /// unless a wake-up is already pending. Called on the reader thread.
        func hand(_ line: [UInt8]) {
            lock.lock()
            guard watching > 0 else { return lock.unlock() }
            let wake = queued.isEmpty
            queued.append(line)
            lock.unlock()
            if wake {
                var one: UInt64 = 1
                _ = write(wakeup, &one, MemoryLayout<UInt64>.size)
            }
        }

        /// The writer thread: waits for a wake-up, then writes every queued
        /// line to every watcher, forever.
        func run() -> Never {
            let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
            var event = epoll_event()
            event.events = UInt32(EPOLLIN.rawValue)
            event.data.fd = wakeup
            guard wakeup >= 0, epoll >= 0, epoll_ctl(epoll, Int32(EPOLL_CTL_ADD), wakeup, &event) == 0 else {
                RelayFloor.fail("handoff floor", "cannot set up a writer's epoll and eventfd: errno \(errno)")
            }
            var events = [epoll_event](repeating: epoll_event(), count: 8)
            var watchers: [Int32] = []  // this thread's own
            var lines: [[UInt8]] = []
            var counter: UInt64 = 0
            while true {
                guard epoll_wait(epoll, &events, Int32(events.count), -1) > 0 else { continue }
                _ = read(wakeup, &counter, MemoryLayout<UInt64>.size)
                lock.lock()
                swap(&lines, &queued)
                watchers.append(contentsOf: added)
                added.removeAll(keepingCapacity: true)
                lock.unlock()
                var dropped = 0
                for line in lines {
                    dropped += line.withUnsafeBytes { RelayFloor.write($0, to: &watchers) }
                }
                lines.removeAll(keepingCapacity: true)
                if dropped > 0 {
                    lock.lock()
                    watching -= dropped
                    lock.unlock()
                }
            }
        }
    }

    /// Names the calling thread (at most 15 bytes), for per-thread CPU figures.
    private static func name(_ name: String) {
        Thread.current.name = name
    }

    /// Serves `path`, relaying gpsd on `gpsdPort` through `count` writer
    /// threads, until killed.
    static func serve(_ path: String, gpsdPort: UInt16, writers count: Int) -> Never {
        let writers = (0..<max(count, 1)).map { _ in Writer() }
        for (index, writer) in writers.enumerated() {
            Thread {
                name("handoff-loop-\(index)")
                writer.run()
            }.start()
        }
        name("handoff-reader")
        var next = 0
        RelayFloor.relay(
            path, gpsdPort: gpsdPort, name: "handoff floor",
            accepted: { fd in
                writers[next % writers.count].add(fd)
                next += 1
            }
        ) { time in
            // A line of its own per fix: the writers hold it after the reader has moved on.
            var line: [UInt8] = []
            line.reserveCapacity(512)
            RelayFloor.update(stampedWith: time, into: &line)
            for writer in writers { writer.hand(line) }
        }
    }
}
