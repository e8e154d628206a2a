import Glibc
import Foundation
import PetSpotLocation

/// The fan-out floor: the least a server can do to send one line to each
/// of many watchers on this box. It answers each connection's first line
/// (the `location.watch`) with a subscription, then every 100 ms writes a
/// fixed `location.update`-sized line, stamped with the tick's wall-clock
/// time, to every connection with plain blocking `write(2)` calls, from as
/// many writer threads as the daemon has event loops (one per core). No
/// serialization, no options, no buffering: the fan-out step's reader then
/// measures what the box itself costs per delivered line.
enum FanOutFloor {
    /// A daemon update line, with the timestamp left out: `head` + stamp + `tail`.
    static let head = Array(
        (#"{"jsonrpc":"2.0","method":"location.update","params":{"fix":{"accuracy":"full","age":0.001,"#
            + #""altitude":110,"course":90,"horizontalAccuracy":8,"latitude":52.2297,"longitude":21.0122,"#
            + #""mode":3,"source":"simulated","speed":1.4,"timestamp":""#).utf8)
    static let tail = Array(#"","verticalAccuracy":12},"subscription":1}}"#.utf8 + [0x0A])
    static let answer = Array(#"{"id":1,"jsonrpc":"2.0","result":{"subscription":1}}"#.utf8 + [0x0A])

    /// One writer's connections.
    private final class Writer: @unchecked Sendable {
        let lock = NSLock()
        var connections: [Int32] = []
    }

    /// Serves `path` until the process is killed.
    static func serve(_ path: String, writers count: Int, interval: Double) -> Never {
        signal(SIGPIPE, SIG_IGN)  // a watcher that left must not stop the others
        guard let listener = Sockets.listen(.unix(path)) else {
            FileHandle.standardError.write(Data("fan-out floor: cannot listen on \(path)\n".utf8))
            exit(1)
        }
        let writers = (0..<max(count, 1)).map { _ in Writer() }
        for writer in writers {
            let thread = Thread { tick(writer, interval: interval) }
            thread.start()
        }
        var next = 0
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            // The watch request: read up to its newline, answer it.
            var byte: UInt8 = 0
            while read(client, &byte, 1) == 1, byte != 0x0A {}
            guard answer.withUnsafeBytes({ Sockets.writeAll(client, $0) }) else {
                close(client)
                continue
            }
            let writer = writers[next % writers.count]
            next += 1
            writer.lock.lock()
            writer.connections.append(client)
            writer.lock.unlock()
        }
    }

    /// Every `interval` (on the wall clock's multiples of it, the same for
    /// every writer), writes the line stamped with that instant to each of
    /// `writer`'s connections.
    private static func tick(_ writer: Writer, interval: Double) {
        let step = Int64(interval * 1e9)
        var line = [UInt8]()
        while true {
            let due = (Sockets.realtimeNanos() / step + 1) * step
            var deadline = timespec(tv_sec: Int(due / 1_000_000_000), tv_nsec: Int(due % 1_000_000_000))
            while clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &deadline, nil) == EINTR {}
            line.removeAll(keepingCapacity: true)
            line.append(contentsOf: head)
            line.append(contentsOf: UTCTimestamp(secondsSince1970: Double(due) / 1e9).iso8601.utf8)
            line.append(contentsOf: tail)
            writer.lock.lock()
            let connections = writer.connections
            writer.lock.unlock()
            line.withUnsafeBytes { bytes in
                for fd in connections { _ = write(fd, bytes.baseAddress!, bytes.count) }
            }
        }
    }
}
