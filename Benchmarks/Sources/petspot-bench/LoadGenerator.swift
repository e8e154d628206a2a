import Glibc
import Dispatch
import Foundation
import Synchronization

/// The request/response exchange a load step runs on each connection.
enum Exchange: Sendable {
    /// JSON-RPC `location.get` to petspot-locationd (or the floor server, which
    /// answers any line with a fixed fix line). Success: the line has `"result"`.
    case locationGet
    /// gpsd: `?WATCH={"enable":true};` once, then `?POLL;` in a loop,
    /// skipping the watch stream's unsolicited lines until the `POLL` answer.
    case gpsdPoll
}

/// What one load step measured.
struct LoadResult: Sendable {
    var requests: Int
    var errors: Int
    var seconds: Double
    var latencies: Latencies

    var perSecond: Double { seconds > 0 ? Double(requests) / seconds : 0 }
}

/// A closed-loop load generator: one OS thread per connection, blocking
/// sockets, one request outstanding per connection, each request's latency
/// taken with `CLOCK_MONOTONIC`; each thread waits for its answer as
/// ``ClientWait`` says. Requests completed during the warm-up are
/// not counted.
struct LoadGenerator: Sendable {
    var endpoint: Endpoint
    var exchange: Exchange
    var connections: Int
    var warmup: Double
    var duration: Double
    /// How each thread waits for its answer.
    var wait = ClientWait.poll

    private struct ThreadOutcome: Sendable {
        var latencies: [UInt32] = []
        var errors = 0
        var connected = true
    }

    /// Runs the step and returns its figures.
    func run() -> LoadResult {
        let ready = DispatchSemaphore(value: 0)
        let go = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        let schedule = Mutex<(measureFrom: UInt64, stopAt: UInt64)>((0, 0))
        let outcomes = Mutex<[ThreadOutcome]>([])
        let expected = Int((duration - warmup) * 200_000) / max(connections, 1) + 1024

        for index in 0..<connections {
            let endpoint = self.endpoint
            let exchange = self.exchange
            let wait = self.wait
            let thread = Thread {
                var outcome = ThreadOutcome()
                defer {
                    outcomes.withLock { $0.append(outcome) }
                    done.signal()
                }
                let session = Self.open(endpoint, exchange: exchange)
                session?.wait = wait
                ready.signal()
                go.wait()
                guard let session else {
                    outcome.connected = false
                    outcome.errors += 1
                    return
                }
                defer { close(session.fd) }
                let (measureFrom, stopAt) = schedule.withLock { $0 }
                outcome.latencies.reserveCapacity(expected)
                var id = index * 1_000_000_000
                while true {
                    let started = Sockets.monotonicNanos()
                    if started >= stopAt { break }
                    id += 1
                    let ok = Self.exchangeOnce(session, exchange: exchange, id: id)
                    let finished = Sockets.monotonicNanos()
                    guard let ok else {
                        outcome.errors += 1  // timeout or closed: this connection is done
                        return
                    }
                    if started >= measureFrom {
                        if ok {
                            outcome.latencies.append(UInt32(clamping: finished - started))
                        } else {
                            outcome.errors += 1
                        }
                    }
                }
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        for _ in 0..<connections { ready.wait() }
        let start = Sockets.monotonicNanos()
        schedule.withLock {
            $0 = (start + UInt64(warmup * 1e9), start + UInt64(duration * 1e9))
        }
        for _ in 0..<connections { go.signal() }
        for _ in 0..<connections { done.wait() }
        let all = outcomes.withLock { $0 }
        var merged: [UInt32] = []
        merged.reserveCapacity(all.reduce(0) { $0 + $1.latencies.count })
        for outcome in all { merged.append(contentsOf: outcome.latencies) }
        return LoadResult(
            requests: merged.count, errors: all.reduce(0) { $0 + $1.errors }, seconds: duration - warmup,
            latencies: Latencies(nanoseconds: merged))
    }

    /// Connects and performs the exchange's set-up; `nil` on failure.
    static func open(_ endpoint: Endpoint, exchange: Exchange) -> LineReader? {
        guard let fd = Sockets.connect(endpoint) else { return nil }
        let reader = LineReader(fd: fd)
        switch exchange {
        case .locationGet:
            return reader
        case .gpsdPoll:
            guard Sockets.writeAll(fd, "?WATCH={\"enable\":true};\n") else { return nil }
            // VERSION arrives first, then DEVICES and WATCH.
            while let line = reader.readLine() {
                if line.contains("\"class\":\"WATCH\"") { return reader }
            }
            close(fd)
            return nil
        }
    }

    private static let pollRequest: StaticString = "?POLL;\n"

    /// One request and its answer: `true` success, `false` an error answer,
    /// `nil` the connection failed (closed or timed out).
    static func exchangeOnce(_ reader: LineReader, exchange: Exchange, id: Int) -> Bool? {
        switch exchange {
        case .locationGet:
            var request = "{\"jsonrpc\":\"2.0\",\"id\":\(id),\"method\":\"location.get\",\"params\":{\"maxAge\":5}}\n"
            let sent = request.withUTF8 { Sockets.writeAll(reader.fd, UnsafeRawBufferPointer($0)) }
            guard sent, let line = reader.readLine() else { return nil }
            return line.contains("\"result\"")
        case .gpsdPoll:
            let sent = Sockets.writeAll(
                reader.fd, UnsafeRawBufferPointer(start: pollRequest.utf8Start, count: pollRequest.utf8CodeUnitCount))
            guard sent else { return nil }
            while let line = reader.readLine() {
                if line.contains("\"class\":\"POLL\"") { return line.contains("\"active\":1") }
                if line.contains("\"class\":\"ERROR\"") { return false }
            }
            return nil
        }
    }
}

/// Latency percentiles of one step.
struct Latencies: Sendable {
    private var sorted: [UInt32]

    init(nanoseconds: [UInt32]) { sorted = nanoseconds.sorted() }

    init(microseconds: [Double]) { sorted = microseconds.map { UInt32(clamping: Int(($0 * 1000).rounded())) }.sorted() }

    var count: Int { sorted.count }

    /// The `fraction` quantile in microseconds (nearest rank).
    func percentile(_ fraction: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        let rank = min(sorted.count - 1, max(0, Int((fraction * Double(sorted.count)).rounded(.up)) - 1))
        return Double(sorted[rank]) / 1000
    }
}
