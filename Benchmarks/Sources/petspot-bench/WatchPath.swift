import Glibc
import CEpoll
import Foundation

/// Where a pool's watchers are connected.
enum WatchTarget: Sendable {
    /// gpsd directly: `?WATCH={"enable":true,"json":true}` over loopback TCP;
    /// an update is a TPV line.
    case gpsd(UInt16)
    /// petspot-locationd: `location.watch` on its Unix socket; an update is a
    /// `location.update` notification.
    case daemon(String)
}

/// What one watch window measured.
struct WatchWindow: Sendable {
    /// The window's length (monotonic clock), seconds.
    var seconds: Double
    /// Updates received, all watchers together.
    var updates = 0
    /// Fixes in the window: the daemon's `source.fixes` counter when a daemon
    /// is measured, otherwise the distinct receiver times the watchers saw.
    var fixes = 0
    /// CPU time in the window per process name, nanoseconds (schedstat, every thread).
    var cpu: [String: Int64] = [:]
    /// CPU time in the window per process name from `utime + stime` of
    /// /proc/PID/stat (10 ms ticks), nanoseconds: the cross-check.
    var cpuTicks: [String: Int64] = [:]
    /// Context switches (voluntary + nonvoluntary) per process name, and per
    /// thread name within it.
    var switches: [String: [String: Int]] = [:]
    /// Of ``switches``, the nonvoluntary ones (the thread was preempted, it
    /// did not wait), per process name and thread name.
    var involuntary: [String: [String: Int]] = [:]
    /// Per delivered daemon update: its arrival minus the arrival of the same
    /// fix's TPV on the direct gpsd connection, µs (only with a reference).
    var added: Latencies?
    /// `/proc/loadavg` at the window's start.
    var loadAverage = ""

    /// The CPU of `processes` together per update, µs.
    func cpuPerUpdate(_ processes: [String]) -> Double? {
        guard updates > 0 else { return nil }
        return Double(processes.reduce(Int64(0)) { $0 + (cpu[$1] ?? 0) }) / 1000 / Double(updates)
    }

    func switchCount(_ process: String) -> Int { switches[process]?.values.reduce(0, +) ?? 0 }
}

/// `count` watchers on one target, read by the calling thread with `epoll`,
/// and optionally one more connection straight to gpsd (the reference) whose
/// TPV arrivals the daemon watchers' arrivals are compared with: one thread,
/// one clock (`CLOCK_MONOTONIC`).
final class WatcherPool {
    private final class Connection {
        let fd: Int32
        var pending: [UInt8] = []
        init(fd: Int32) { self.fd = fd }
    }

    let target: WatchTarget
    private var watchers: [Connection] = []
    private var reference: Connection?

    static let gpsdWatch = "?WATCH={\"enable\":true,\"json\":true}\n"
    static let daemonWatch = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"location.watch\"}\n"

    /// Connects and subscribes every watcher (each answered before the next connects).
    init(target: WatchTarget, count: Int, referenceGpsdPort: UInt16? = nil) throws {
        self.target = target
        if let referenceGpsdPort {
            reference = try Self.subscribe(.gpsd(referenceGpsdPort), index: 0)
        }
        for index in 0..<count {
            watchers.append(try Self.subscribe(target, index: index))
        }
    }

    deinit {
        for connection in watchers { close(connection.fd) }
        if let reference { close(reference.fd) }
    }

    /// Connects one watcher and waits (at most 5 s) for its subscription's answer.
    private static func subscribe(_ target: WatchTarget, index: Int) throws -> Connection {
        let endpoint: Endpoint
        let request: String
        let answered: StaticString
        switch target {
        case .gpsd(let port): (endpoint, request, answered) = (.tcp(port), gpsdWatch, "\"class\":\"WATCH\"")
        case .daemon(let socket): (endpoint, request, answered) = (.unix(socket), daemonWatch, "\"subscription\"")
        }
        guard let fd = Sockets.connect(endpoint) else {
            throw BenchError("watcher \(index + 1) on \(endpoint): connect failed, errno \(errno)")
        }
        let connection = Connection(fd: fd)
        guard Sockets.writeAll(fd, request) else {
            close(fd)
            throw BenchError("watcher \(index + 1) on \(endpoint): cannot send the watch request")
        }
        switch readUntil(fd, answered, pending: &connection.pending, timeout: 5) {
        case .found: return connection
        case .error(let line):
            close(fd)
            throw BenchError("watcher \(index + 1) on \(endpoint): refused: \(line)")
        case .closed(let after):
            close(fd)
            throw BenchError("watcher \(index + 1) on \(endpoint): closed after \(Int(after * 1000)) ms")
        case .timedOut:
            close(fd)
            throw BenchError("watcher \(index + 1) on \(endpoint): no answer to its watch request within 5 s")
        }
    }

    enum Handshake {
        case found
        case error(String)
        /// Seconds from the start of the wait to the end of file (or reset).
        case closed(Double)
        case timedOut
    }

    /// Reads `fd` until a line contains `marker`; bytes after that line stay in `pending`.
    static func readUntil(_ fd: Int32, _ marker: StaticString, pending: inout [UInt8], timeout: Double) -> Handshake {
        let started = Sockets.monotonicNanos()
        let deadline = started + UInt64(timeout * 1e9)
        var scratch = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            while let newline = pending.firstIndex(of: 0x0A) {
                let found = pending.withUnsafeBytes { bytes in
                    UnsafeRawBufferPointer(rebasing: bytes[..<newline]).contains(marker)
                }
                let isError = pending.withUnsafeBytes { bytes in
                    UnsafeRawBufferPointer(rebasing: bytes[..<newline]).contains("\"error\"")
                        || UnsafeRawBufferPointer(rebasing: bytes[..<newline]).contains("\"class\":\"ERROR\"")
                }
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if found { return .found }
                if isError { return .error(line) }
            }
            let now = Sockets.monotonicNanos()
            guard now < deadline else { return .timedOut }
            var waiting = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&waiting, 1, Int32((deadline - now) / 1_000_000) + 1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return .timedOut }
            let count = scratch.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR || errno == EAGAIN { continue }
            guard count > 0 else { return .closed(Double(Sockets.monotonicNanos() - started) / 1e9) }
            pending.append(contentsOf: scratch[0..<count])
        }
    }

    /// Reads every connection for `seconds` and counts what arrived; the CPU
    /// time and context switches of `processes` over the same window.
    /// - Parameter daemon: when given, `fixes` is the difference of its `source.fixes`.
    func measure(seconds: Double, processes: [ManagedProcess], daemon: DaemonHarness? = nil) throws -> WatchWindow {
        let connections = (reference.map { [$0] } ?? []) + watchers
        let referenceCount = reference == nil ? 0 : 1
        let epoll = try Sockets.epoll(readingEach: connections.map(\.fd), for: "watch")
        defer { close(epoll) }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 16)
        defer { scratch.deallocate() }
        var events = [epoll_event](repeating: epoll_event(), count: 256)

        let isDaemon: Bool
        if case .daemon = target { isDaemon = true } else { isDaemon = false }
        let updateMarker: StaticString = isDaemon ? "\"location.update\"" : "\"class\":\"TPV\""
        var referenceArrival: [Int64: UInt64] = [:]
        var arrivals: [(fix: Int64, at: UInt64)] = []
        var seen = Set<Int64>()
        var updates = 0
        // A receiver time is parsed once, then recognised by its bytes.
        var lastStamp: [UInt8] = []
        var lastKey: Int64 = 0
        func key(_ line: UnsafeRawBufferPointer, _ marker: StaticString) -> Int64? {
            guard let range = FanOut.stringRange(of: marker, in: line) else { return nil }
            if range.count == lastStamp.count, memcmp(line.baseAddress! + range.lowerBound, lastStamp, range.count) == 0
            {
                return lastKey
            }
            guard let parsed = FanOut.parse(Array(line[range])) else { return nil }
            lastStamp = Array(line[range])
            lastKey = parsed
            return parsed
        }
        func handle(_ line: UnsafeRawBufferPointer, isReference: Bool, at received: UInt64) {
            if isReference {
                guard line.contains("\"class\":\"TPV\""), let fix = key(line, "\"time\":\"") else { return }
                if referenceArrival[fix] == nil { referenceArrival[fix] = received }
                return
            }
            guard line.contains(updateMarker) else { return }
            updates += 1
            guard let fix = key(line, isDaemon ? "\"timestamp\":\"" : "\"time\":\"") else { return }
            seen.insert(fix)
            if referenceCount > 0 { arrivals.append((fix, received)) }
        }

        let fixesBefore = daemon?.sourceFixes()
        if fixesBefore != nil { usleep(50_000) }  // the status connection's close is handled before the window
        let loadAverage = PetSpotBench.Run.loadAverage()
        let cpuBefore = processes.map { $0.cpuNanos ?? 0 }
        let ticksBefore = processes.map { $0.cpuTicks ?? 0 }
        let switchesBefore = processes.map(\.threadSwitches)
        let started = Sockets.monotonicNanos()
        let stopAt = started + UInt64(seconds * 1e9)
        while true {
            let now = Sockets.monotonicNanos()
            guard now < stopAt else { break }
            let ready = epoll_wait(epoll, &events, Int32(events.count), Int32((stopAt - now) / 1_000_000) + 1)
            guard ready > 0 else { continue }
            for slot in 0..<Int(ready) {
                let index = Int(events[slot].data.u64)
                let connection = connections[index]
                let count = read(connection.fd, scratch.baseAddress!, scratch.count)
                let received = Sockets.monotonicNanos()
                guard count > 0 else {
                    if count < 0, errno == EINTR || errno == EAGAIN { continue }
                    throw BenchError("watch: a watcher connection closed (\(target))")
                }
                let isReference = index < referenceCount
                var data = UnsafeRawBufferPointer(rebasing: scratch[0..<count])
                if !connection.pending.isEmpty {
                    guard let newline = data.firstIndex(of: 0x0A) else {
                        connection.pending.append(contentsOf: data)
                        continue
                    }
                    connection.pending.append(contentsOf: data[..<newline])
                    connection.pending.withUnsafeBytes { handle($0, isReference: isReference, at: received) }
                    connection.pending.removeAll(keepingCapacity: true)
                    data = UnsafeRawBufferPointer(rebasing: data[(newline + 1)...])
                }
                while let newline = data.firstIndex(of: 0x0A) {
                    handle(UnsafeRawBufferPointer(rebasing: data[..<newline]), isReference: isReference, at: received)
                    data = UnsafeRawBufferPointer(rebasing: data[(newline + 1)...])
                }
                if !data.isEmpty { connection.pending.append(contentsOf: data) }
            }
        }
        let elapsed = Double(Sockets.monotonicNanos() - started) / 1e9
        var window = WatchWindow(seconds: elapsed, updates: updates, loadAverage: loadAverage)
        for (index, process) in processes.enumerated() {
            window.cpu[process.name] = (process.cpuNanos ?? 0) - cpuBefore[index]
            window.cpuTicks[process.name] =
                Int64(Double((process.cpuTicks ?? 0) - ticksBefore[index]) / ManagedProcess.ticksPerSecond * 1e9)
            // By thread id: a thread that started in the window counts from 0; one that ended is lost.
            var byThread: [String: Int] = [:]
            var preempted: [String: Int] = [:]
            for (thread, now) in process.threadSwitches {
                byThread[now.name, default: 0] += now.switches - (switchesBefore[index][thread]?.switches ?? 0)
                preempted[now.name, default: 0] += now.involuntary - (switchesBefore[index][thread]?.involuntary ?? 0)
            }
            window.switches[process.name] = byThread
            window.involuntary[process.name] = preempted
        }
        if let fixesBefore, let fixesAfter = daemon?.sourceFixes() {
            window.fixes = fixesAfter - fixesBefore
        } else {
            window.fixes = seen.count
        }
        if referenceCount > 0 {
            let reference = referenceArrival
            window.added = Latencies(
                microseconds: arrivals.compactMap { arrival in
                    reference[arrival.fix].map { Double(Int64(arrival.at) - Int64($0)) / 1000 }
                })
        }
        return window
    }
}

extension DaemonHarness {
    /// `source.fixes` of `daemon.status` (valid fixes the source has delivered since start).
    func sourceFixes() -> Int? {
        guard let reader = LoadGenerator.open(.unix(socket), exchange: .locationGet) else { return nil }
        defer { close(reader.fd) }
        guard Sockets.writeAll(reader.fd, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"daemon.status\"}\n"),
            let line = reader.readLine()
        else { return nil }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: "\"fixes\":") else { return nil }
        return Int(text[range.upperBound...].prefix { $0.isNumber })
    }
}

/// What gpsd does with one client more than it serves: opens watchers one
/// by one until one is not served, and says how that one ended.
enum GpsdClientLimit {
    static func probe(port: UInt16, upTo limit: Int = 80) -> String {
        var held: [Int32] = []
        defer { for fd in held { close(fd) } }
        for index in 1...limit {
            let started = Sockets.monotonicNanos()
            guard let fd = Sockets.connect(.tcp(port)) else {
                return "client \(index): connect() failed, errno \(errno) (\(String(cString: strerror(errno))))"
            }
            held.append(fd)
            let connected = Double(Sockets.monotonicNanos() - started) / 1e6
            guard Sockets.writeAll(fd, WatcherPool.gpsdWatch) else {
                return "client \(index): connect() succeeded in \(String(format: "%.2f", connected)) ms, "
                    + "then writing ?WATCH failed, errno \(errno)"
            }
            var pending: [UInt8] = []
            let outcome = WatcherPool.readUntil(fd, "\"class\":\"WATCH\"", pending: &pending, timeout: 3)
            switch outcome {
            case .found: continue
            case .error(let line):
                return "client \(index): connect() succeeded; gpsd answered an error: \(line.prefix(120))"
            case .closed(let after):
                let reason = errno == ECONNRESET ? "reset (ECONNRESET)" : "end of file"
                return "clients 1-\(index - 1) served; client \(index): connect() succeeded "
                    + "(\(String(format: "%.2f", connected)) ms), then gpsd closed it without a byte: "
                    + "\(reason) \(String(format: "%.2f", after * 1000)) ms after ?WATCH"
            case .timedOut:
                return "clients 1-\(index - 1) served; client \(index): connect() succeeded, "
                    + "no answer to ?WATCH within 3 s (hangs)"
            }
        }
        return "all \(limit) clients served"
    }
}
