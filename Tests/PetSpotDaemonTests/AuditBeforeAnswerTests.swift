import DaemonTestSupport
import Foundation
import Glibc
import PetSpotConfiguration
import PetSpotDaemon
import PetSpotLocation
import PetSpotPolicy
import PetSpotSettings
import Synchronization
import TestSupport
import Testing

/// `location.get` answers produced together on an event loop share one
/// audit write (``AuditBatch``): still, no answer reaches its client
/// before its audit record is in the file, and a connection's answers keep
/// their order.
@Suite("Answers batched per event-loop pass are audited before they are sent", .timeLimit(.minutes(5)))
struct AuditBeforeAnswerTests {
    static let configuration = InProcessDaemon.configuration(
        at: StaticSourceSettings(coordinate: Coordinate(latitude: 52.2297, longitude: 21.0122), horizontalAccuracy: 15),
        policy: Policy(defaultStatus: .authorized))

    static func get(_ id: Int) -> String { #"{"jsonrpc":"2.0","id":\#(id),"method":"location.get"}"# + "\n" }

    /// What the client threads share.
    final class Shared: Sendable {
        let received = Atomic<Int>(0)
        let failures = Mutex<[String]>([])

        /// Keeps the first few failures (one is enough to fail).
        func fail(_ message: String) { failures.withLock { if $0.count < 5 { $0.append(message) } } }
    }

    /// Counts the `location.get` records in the audit log, reading only what was appended since the last call.
    final class AuditCounter {
        let path: String
        private var offset: off_t = 0
        private(set) var records = 0

        init(path: String) { self.path = path }

        func count() -> Int {
            let descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else { return records }
            defer { close(descriptor) }
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = pread(descriptor, &chunk, chunk.count, offset)
                guard count > 0 else { break }
                // Only whole lines: a line being appended is counted next time.
                guard let last = chunk[..<count].lastIndex(of: 10) else { break }
                records +=
                    chunk[...last].split(separator: 10).filter { line in
                        String(decoding: line, as: UTF8.self).contains(#""method":"location.get""#)
                    }.count
                offset += off_t(last + 1)
            }
            return records
        }
    }

    @Test("8 connections asking 300 times each: every answer finds its record already written")
    func everyAnswerFindsItsRecordWritten() async throws {
        try await InProcessDaemon.with(Self.configuration) { daemon in
            let auditPath = daemon.configuration.daemon.auditLog
            let shared = Shared()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for connection in 0..<8 {
                    group.addTask {
                        try await onOwnThread {
                            let socket = try RawSocket(path: daemon.socketPath)
                            let counter = AuditCounter(path: auditPath)
                            for request in 0..<300 {
                                try socket.send(Self.get(connection * 1000 + request))
                                let answer = try socket.readLine()
                                guard answer.contains(#""result""#) else {
                                    shared.fail("not answered: \(answer)")
                                    return
                                }
                                // Every answer counted here has reached its client.
                                let answered = shared.received.add(1, ordering: .sequentiallyConsistent).newValue
                                let audited = counter.count()
                                if audited < answered {
                                    shared.fail("\(answered) answers received, \(audited) recorded")
                                }
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            #expect(shared.failures.withLock { $0 } == [])
            #expect(shared.received.load(ordering: .relaxed) == 2400)
            #expect(AuditCounter(path: auditPath).count() == 2400)
        }
    }

    @Test("a location.get answered at once, then a line that goes the full way: the answers keep their order")
    func answersKeepTheirOrderOnAConnection() async throws {
        try await InProcessDaemon.with(Self.configuration) { daemon in
            try await onOwnThread {
                let socket = try RawSocket(path: daemon.socketPath)
                // The first get goes the full way and keeps the grant; the next ones are answered at once.
                try socket.send(Self.get(1))
                _ = try socket.readLine()
                for round in 0..<50 {
                    let status = #"{"jsonrpc":"2.0","id":"s\#(round)","method":"authorization.status"}"#
                    try socket.send(Self.get(round * 10 + 2) + Self.get(round * 10 + 3) + status + "\n")
                    var ids: [String] = []
                    for _ in 0..<3 {
                        let answer = try #require(try socket.readJSON() as? [String: Any])
                        ids.append("\(answer["id"] ?? "none")")
                    }
                    #expect(ids == ["\(round * 10 + 2)", "\(round * 10 + 3)", "s\(round)"])
                }
            }
        }
    }
}
