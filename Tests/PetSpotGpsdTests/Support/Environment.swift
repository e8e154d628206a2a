import Foundation
import Glibc

/// Where the receiver captures are: `<repo>/../shared/gps-logs`.
enum Captures {
    static let directory: String = {
        var url = URL(fileURLWithPath: #filePath)
        // …/<repo>/Tests/PetSpotGpsdTests/Support/Environment.swift → <repo>
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.deletingLastPathComponent().appendingPathComponent("shared/gps-logs").path
    }()

    static func path(_ name: String) -> String { directory + "/" + name }
}

/// A TCP port on 127.0.0.1 that was free a moment ago.

/// Open file descriptors and threads of this process.
struct ResourceCount: Equatable, CustomStringConvertible {
    var fileDescriptors: Int
    var threads: Int

    static func now() -> ResourceCount {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? -1
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? -1
        return ResourceCount(fileDescriptors: fds, threads: tasks)
    }

    var description: String { "\(fileDescriptors) fds, \(threads) threads" }
}

/// At most `limit` bodies at once (gpsfake replays on a 2-core CI machine).
actor Gate {
    private let limit: Int
    private var running = 0
    private var queue: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) { self.limit = limit }

    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async rethrows -> T {
        if running >= limit {
            await withCheckedContinuation { queue.append($0) }
        } else {
            running += 1
        }
        defer {
            if queue.isEmpty { running -= 1 } else { queue.removeFirst().resume() }
        }
        return try await body()
    }
}

/// A value shared between test threads, behind a lock.
final class Locked<Value: Sendable>: Sendable {
    private let box: LockedBox<Value>
    init(_ value: Value) { box = LockedBox(value) }
    var value: Value {
        get { box.withLock { $0 } }
        set { box.withLock { $0 = newValue } }
    }
}

/// A value behind an `NSLock` (a pthread mutex).
///
/// Not `Synchronization.Mutex`: on Linux its waits go through futex calls
/// that ThreadSanitizer does not model, and `scripts/sanitize thread`
/// reported an access race between two `withLock` bodies of the same Mutex
/// (LineServer's state). TSan intercepts pthread mutexes.
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) { self.value = value }

    /// Runs `body` with the value, under the lock.
    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}

/// The gpsd fuzz target's regression inputs, `Fuzz/Corpus/gpsd/regression-*`:
/// lines that once hung libgps 3.22's parser.
enum GpsdRegressions {
    static let directory: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Fuzz/Corpus/gpsd").path
    }()

    /// The names of the libgps hang inputs.
    static let names: [String] = {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return all.filter { $0.hasPrefix("regression-libgps-unpack-hang-") }.sorted()
    }()

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
    }
}

/// CPU time of this process's gpsd reader threads (named `petspot-gpsd`).
enum ReaderThreads {
    /// User + system clock ticks of every such thread alive now, and how many there are.
    static func cpuTicks() -> (ticks: Int, threads: Int) {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        var ticks = 0
        var threads = 0
        for task in tasks {
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            guard comm.trimmingCharacters(in: .whitespacesAndNewlines) == "petspot-gpsd",
                let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let end = stat.lastIndex(of: ")")
            else { continue }
            // Fields after "(comm)": state is field 3, utime 14, stime 15.
            let fields = stat[stat.index(after: end)...].split(separator: " ")
            guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { continue }
            ticks += user + system
            threads += 1
        }
        return (ticks, threads)
    }
}
