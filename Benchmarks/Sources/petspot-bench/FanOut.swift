import Glibc
import CEpoll
import Foundation
import PetSpotLocation

/// What the fan-out step measured.
struct FanOutResult: Sendable {
    var watchers: Int
    /// Fixes every watcher received.
    var complete: Int
    /// Fixes some watcher never received (newest-only buffering skipped them).
    var incomplete: Int
    /// Emission (the fix's `timestamp`, wall clock, millisecond precision,
    /// rounded down) to the last watcher's receipt, in µs.
    var toLast: Latencies
    /// First watcher's receipt to the last watcher's receipt, in µs.
    var spread: Latencies
    /// Daemon RSS with every watcher subscribed, KiB.
    var residentKiB: Int?
    /// Daemon CPU time (user + system) per delivered update while tracking,
    /// in µs: what one watcher costs per fix, less sensitive to a noisy
    /// machine than the latencies.
    var cpuPerUpdate: Double?
    /// This benchmark's reader thread's CPU time per received line, in µs:
    /// the other share of the same two cores.
    var readerCPUPerLine: Double?
}

/// `watchers` connections each with a `location.watch` subscription, read by
/// one `epoll` thread; for each fix, the time from its emission to its
/// receipt by the last watcher.
struct FanOut {
    var socket: String
    var watchers: Int
    var fixes: Int

    private final class Connection {
        let fd: Int32
        var pending: [UInt8] = []
        init(fd: Int32) { self.fd = fd }
    }

    private struct Tracking {
        var count = 0
        var first: Int64 = 0
        var last: Int64 = 0
    }

    func run(daemon: ManagedProcess) throws -> FanOutResult {
        var connections: [Connection] = []
        defer { for connection in connections { close(connection.fd) } }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { scratch.deallocate() }

        // Subscribe every watcher (blocking reads until the answer line).
        for index in 0..<watchers {
            guard let fd = Sockets.connect(.unix(socket)) else {
                throw BenchError("fan-out: connection \(index + 1) of \(watchers) failed: errno \(errno)")
            }
            let connection = Connection(fd: fd)
            connections.append(connection)
            guard Sockets.writeAll(fd, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"location.watch\"}\n") else {
                throw BenchError("fan-out: cannot send location.watch")
            }
            var answered = false
            while !answered {
                let count = read(fd, scratch.baseAddress!, scratch.count)
                guard count > 0 else { throw BenchError("fan-out: watcher \(index + 1) got no answer") }
                connection.pending.append(contentsOf: UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
                while let newline = connection.pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: connection.pending[..<newline], as: UTF8.self)
                    connection.pending.removeSubrange(...newline)
                    if line.contains("\"subscription\"") && line.contains("\"result\"") { answered = true }
                    if line.contains("\"error\"") { throw BenchError("fan-out: watch refused: \(line)") }
                }
            }
            connection.pending.removeAll()
        }
        usleep(300_000)
        let resident = daemon.residentKiB
        let trackFrom = Sockets.realtimeNanos() + 50_000_000

        // epoll, not poll: the reader's cost per wake must not grow with the
        // number of watchers, or the benchmark would measure itself.
        let epoll = try Sockets.epoll(readingEach: connections.map(\.fd), for: "fan-out")
        defer { close(epoll) }
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        let ticksBefore = daemon.cpuTicks
        let readerBefore = Sockets.threadCPUNanos()
        var linesRead = 0
        var tracked: [Int64: Tracking] = [:]
        var completed: [(emitted: Int64, first: Int64, last: Int64)] = []
        let deadline = Sockets.monotonicNanos() + UInt64(Double(fixes) * 0.3e9) + 10_000_000_000
        // The reader must cost little per line, or the benchmark measures
        // itself: the fix's timestamp is parsed once, then recognised by its bytes.
        var lastStamp: [UInt8] = []
        var lastEmitted: Int64 = 0
        // Counts one received line; no allocation unless a line arrives split.
        func record(_ line: UnsafeRawBufferPointer, at received: Int64) {
            guard let stamp = Self.timestampRange(in: line) else { return }
            let emitted: Int64
            if stamp.count == lastStamp.count, memcmp(line.baseAddress! + stamp.lowerBound, lastStamp, stamp.count) == 0
            {
                emitted = lastEmitted
            } else {
                guard let parsed = Self.parse(Array(line[stamp])) else { return }
                lastStamp = Array(line[stamp])
                lastEmitted = parsed
                emitted = parsed
            }
            guard emitted >= trackFrom else { return }
            var entry = tracked[emitted] ?? Tracking(count: 0, first: received, last: received)
            entry.count += 1
            entry.last = received
            if entry.count == watchers {
                completed.append((emitted, entry.first, entry.last))
                tracked[emitted] = nil
            } else {
                tracked[emitted] = entry
            }
        }
        while completed.count < fixes, Sockets.monotonicNanos() < deadline {
            let ready = epoll_wait(epoll, &events, Int32(events.count), 1000)
            guard ready > 0 else { continue }
            for slot in 0..<Int(ready) {
                let connection = connections[Int(events[slot].data.u64)]
                let count = read(connection.fd, scratch.baseAddress!, scratch.count)
                let received = Sockets.realtimeNanos()
                guard count > 0 else {
                    throw BenchError("fan-out: a watcher connection closed")
                }
                var data = UnsafeRawBufferPointer(rebasing: scratch[0..<count])
                if !connection.pending.isEmpty {
                    // Complete the split line first.
                    guard let newline = data.firstIndex(of: 0x0A) else {
                        connection.pending.append(contentsOf: data)
                        continue
                    }
                    connection.pending.append(contentsOf: data[..<newline])
                    linesRead += 1
                    connection.pending.withUnsafeBytes { record($0, at: received) }
                    connection.pending.removeAll(keepingCapacity: true)
                    data = UnsafeRawBufferPointer(rebasing: data[(newline + 1)...])
                }
                while let newline = data.firstIndex(of: 0x0A) {
                    linesRead += 1
                    record(UnsafeRawBufferPointer(rebasing: data[..<newline]), at: received)
                    data = UnsafeRawBufferPointer(rebasing: data[(newline + 1)...])
                }
                if !data.isEmpty { connection.pending.append(contentsOf: data) }
            }
        }
        let ticksAfter = daemon.cpuTicks
        let readerCPU = Sockets.threadCPUNanos() - readerBefore
        var cpuPerUpdate: Double?
        if let ticksBefore, let ticksAfter, !completed.isEmpty {
            let seconds = Double(ticksAfter - ticksBefore) / Double(ManagedProcess.ticksPerSecond)
            cpuPerUpdate = seconds * 1e6 / Double(completed.count * watchers)
        }
        let lastComplete = completed.map(\.emitted).max() ?? 0
        let incomplete = tracked.keys.filter { $0 < lastComplete }.count
        return FanOutResult(
            watchers: watchers, complete: completed.count, incomplete: incomplete,
            toLast: Latencies(microseconds: completed.map { Double($0.last - $0.emitted) / 1000 }),
            spread: Latencies(microseconds: completed.map { Double($0.last - $0.first) / 1000 }),
            residentKiB: resident, cpuPerUpdate: cpuPerUpdate,
            readerCPUPerLine: linesRead > 0 ? Double(readerCPU) / 1000 / Double(linesRead) : nil)
    }

    /// Where the value of the line's `"timestamp"` is (without its quotes).
    static func timestampRange(in line: UnsafeRawBufferPointer) -> Range<Int>? {
        stringRange(of: "\"timestamp\":\"", in: line)
    }

    /// Where the string value after `marker` (a member name, colon and
    /// opening quote, e.g. `"time":"`) is in the line, without its quotes;
    /// only values of at least 20 bytes (ISO 8601 times) are found.
    static func stringRange(of marker: StaticString, in line: UnsafeRawBufferPointer) -> Range<Int>? {
        let length = marker.utf8CodeUnitCount
        guard line.count > length + 20 else { return nil }
        var offset = 0
        while offset + length + 20 <= line.count {
            if line[offset] == UInt8(ascii: "\""), memcmp(line.baseAddress! + offset, marker.utf8Start, length) == 0 {
                let start = offset + length
                guard let end = line[start...].firstIndex(of: UInt8(ascii: "\"")) else { return nil }
                return start..<end
            }
            offset += 1
        }
        return nil
    }

    /// `YYYY-MM-DDTHH:MM:SS[.fff]Z` (``UTCTimestamp``, millisecond
    /// precision as the daemon writes it) as nanoseconds since 1970.
    static func parse(_ bytes: [UInt8]) -> Int64? {
        guard let stamp = UTCTimestamp(iso8601: String(decoding: bytes, as: UTF8.self)) else { return nil }
        return Int64((stamp.secondsSince1970 * 1000).rounded()) * 1_000_000
    }
}
