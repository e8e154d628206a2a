import Glibc
import Foundation
import InMemoryLogging
import Logging
import NIOCore
@testable import PetSpotDaemon
import PetSpotLocation
import Testing
import TestSupport

@Suite struct AuditLogTests {
    static let client = ClientIdentity(
        uid: 1000, gid: 1000, pid: 42, user: "alice", groups: ["alice"], unit: "kiosk.service",
        executable: "/usr/bin/kiosk")

    @Test func recordsAreJSONLinesWithIdentityAndNoCoordinates() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("logs/audit.jsonl")
        let log = AuditLog(path: path, maxBytes: 1 << 20, logger: Logger(label: "test"))
        log.record(
            AuditRecord(
                method: "location.get", client: Self.client, status: .authorized, accuracy: .reduced,
                source: .gpsd, fixAge: 0.123456, time: UTCTimestamp(secondsSince1970: 0)))
        log.record(AuditRecord(method: "location.get", client: Self.client, status: .denied, reason: "denied"))
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        #expect(
            lines[0]
                == #"{"accuracy":"reduced","client":{"executable":"/usr/bin/kiosk","gid":1000,"groups":["alice"],"pid":42,"uid":1000,"unit":"kiosk.service","user":"alice"},"fixAge":0.123,"method":"location.get","source":"gpsd","status":"authorized","time":"1970-01-01T00:00:00Z"}"#
        )
        #expect(lines[1].contains(#""reason":"denied""#))
        #expect(!lines[1].contains("accuracy"))
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)
    }

    static let records: [AuditRecord] = [
        AuditRecord(
            method: "location.get", client: client, status: .authorized, accuracy: .full, source: .simulated,
            fixAge: 12.5, time: UTCTimestamp(secondsSince1970: 1_800_000_000.25)),
        AuditRecord(
            method: "authorization.reset", client: ClientIdentity(uid: 0, gid: 0, pid: 1), status: .notDetermined,
            targetUid: 4_000_000_000),
        AuditRecord(
            method: "authorization.request",
            client: ClientIdentity(
                uid: 1001, gid: 100, pid: 7, user: "zoë \"quoted\" \\ back", groups: ["a/b", "tab\there", "\u{1}"],
                unit: nil, executable: "/opt/kiosk (deleted)"),
            status: .authorized, accuracy: .reduced, decidedBy: "decision"),
        AuditRecord(method: "location.watch", client: client, status: .denied, fixAge: 0.0004, reason: "denied"),
    ]

    /// The daemon's own serializer writes exactly what Foundation's encoder
    /// wrote before (sorted keys, slashes unescaped), and readers decode it.
    @Test(arguments: records)
    func jsonLineMatchesFoundationsEncoder(record: AuditRecord) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let expected = Array(try encoder.encode(record)) + [10]
        #expect(String(decoding: record.jsonLine, as: UTF8.self) == String(decoding: expected, as: UTF8.self))
        #expect(try JSONDecoder().decode(AuditRecord.self, from: Data(record.jsonLine.dropLast())) == record)
    }

    @Test func theLogRotatesBySize() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("audit.jsonl")
        let log = AuditLog(path: path, maxBytes: 4096, generations: 2, logger: Logger(label: "test"))
        for _ in 0..<100 {
            log.record(AuditRecord(method: "location.get", client: Self.client, status: .notDetermined))
        }
        let current = try Data(contentsOf: URL(fileURLWithPath: path))
        let rotated = try Data(contentsOf: URL(fileURLWithPath: path + ".1"))
        #expect(current.count <= 4096 && rotated.count <= 4096)
        #expect(rotated.count > 3000)
        #expect(String(decoding: rotated, as: UTF8.self).hasSuffix("}\n"))
        #expect(FileManager.default.fileExists(atPath: path + ".2"))
        #expect(!FileManager.default.fileExists(atPath: path + ".3"))
    }

    /// Hardening item 5: rotation keeps `generations` files, and dropping the
    /// oldest is itself recorded.
    @Test func item05_rotationKeepsGenerationsAndRecordsTheEviction() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("audit.jsonl")
        let log = AuditLog(path: path, maxBytes: 4096, logger: Logger(label: "test"))
        #expect(log.generations == 5)
        for _ in 0..<400 {
            log.record(AuditRecord(method: "location.get", client: Self.client, status: .authorized))
        }
        for number in 1...5 { #expect(FileManager.default.fileExists(atPath: "\(path).\(number)")) }
        #expect(!FileManager.default.fileExists(atPath: path + ".6"))
        let all = try (0...5).map { number in
            try String(contentsOfFile: number == 0 ? path : "\(path).\(number)", encoding: .utf8)
        }.joined()
        #expect(all.contains(#""method":"audit.rotated""#))
        #expect(all.contains("evicted \(path).5"))
    }

    /// Hardening item 5: a client refused over and over is recorded once,
    /// then summarised ("N more refusals"), and cannot push out others' history.
    @Test func item05_repeatedRefusalsAreCountedNotRecorded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("audit.jsonl")
        let log = AuditLog(path: path, maxBytes: 1 << 20, repeatWindow: .seconds(3600), logger: Logger(label: "test"))
        log.record(AuditRecord(method: "location.get", client: Self.client, status: .authorized))
        let attacker = ClientIdentity(uid: 4242, gid: 4242, pid: 99)
        for _ in 0..<10_000 {
            log.record(
                AuditRecord(method: "location.get", client: attacker, status: .denied, reason: "denied"))
        }
        // Another uid's refusal is its own record.
        log.record(AuditRecord(method: "location.get", client: Self.client, status: .denied, reason: "denied"))
        log.flushRepeats()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 4, "\(lines)")
        #expect(lines.filter { $0.contains(#""uid":4242"#) }.count == 2)
        #expect(lines.last?.contains(#""repeated":9999"#) == true)
    }

    /// Authorization changes carry a reason but are never counted away:
    /// two identical reloads, and the same client moved by each, within one
    /// window are four records, none a summary.
    @Test func authorizationChangesWithAReasonAreEachRecorded() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("audit.jsonl")
        let log = AuditLog(path: path, maxBytes: 1 << 20, repeatWindow: .seconds(3600), logger: Logger(label: "test"))
        for _ in 0..<2 {
            log.record(
                AuditRecord(
                    method: AuditEvent.policyReloaded.rawValue, client: ClientIdentity.daemonProcess,
                    reason: "default denied → authorized"))
            log.record(
                AuditRecord(
                    method: AuditEvent.policyStatusChanged.rawValue, client: Self.client, status: .authorized,
                    reason: "was denied"))
        }
        log.flushRepeats()
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 4, "\(lines)")
        #expect(!lines.contains { $0.contains("repeated") })
    }

    /// The window ends: the next identical refusal is recorded again, after the summary.
    @Test func item05_aNewWindowRecordsAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("audit.jsonl")
        let log = AuditLog(path: path, maxBytes: 1 << 20, repeatWindow: .zero, logger: Logger(label: "test"))
        let attacker = ClientIdentity(uid: 4242, gid: 4242, pid: 99)
        for _ in 0..<3 {
            log.record(AuditRecord(method: "location.get", client: attacker, status: .denied, reason: "denied"))
        }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        #expect(!lines.contains { $0.contains("repeated") })
    }

    @Test func anUnwritableLogIsReportedNotFatal() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try directory.write("file", "")
        let messages = InMemoryLogHandler()
        let logger = Logger(label: "test") { _ in messages }
        let log = AuditLog(path: directory.file("file/audit.jsonl"), maxBytes: 4096, logger: logger)
        log.record(AuditRecord(method: "location.get", client: Self.client))
        log.record(AuditRecord(method: "location.get", client: Self.client))
        #expect(messages.entries.filter { "\($0.message)".contains("cannot write the audit log") }.count == 1)
    }

    /// Lines appended together (one pass's answers) stay whole, in order and
    /// complete when a rotation falls among them: the file before the
    /// rotation ends on a whole line within the size, the rest goes on in
    /// the new file.
    @Test func groupedLinesRotateBetweenLinesAndLoseNone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("audit.jsonl")
        let log = AuditLog(path: path, maxBytes: 4096, generations: 100, logger: Logger(label: "test"))
        let client = AuditRecord.clientObject(Self.client)
        var written: [String] = []
        for group in 0..<40 {
            var lines = AuditLines()
            for index in 0..<(group % 7 + 1) {
                let record = AuditRecord(
                    method: "location.get", client: Self.client, status: .authorized, accuracy: .full,
                    source: .gpsd, fixAge: Double(group * 10 + index))
                let line = record.jsonLine(client: client)
                #expect(line == record.jsonLine)
                lines.append(line)
                written.append(String(decoding: line.dropLast(), as: UTF8.self))
            }
            log.append(lines)
        }
        var files: [String] = []
        var number = 1
        while FileManager.default.fileExists(atPath: "\(path).\(number)") {
            files.insert("\(path).\(number)", at: 0)
            number += 1
        }
        files.append(path)
        #expect(files.count > 3)
        var read: [String] = []
        for file in files {
            let contents = try String(contentsOfFile: file, encoding: .utf8)
            #expect(contents.utf8.count <= 4096)
            #expect(contents.hasSuffix("\n"))
            read += contents.split(separator: "\n").map(String.init)
        }
        #expect(read == written)
    }

    /// Location records are flushed to disk every `syncEvery` records by the
    /// log's sync thread, on a duplicate descriptor it closes: the writer
    /// never waits for the disk, and no descriptor is left behind.
    @Test func locationRecordsAreSyncedInTheBackgroundWithoutLeakingDescriptors() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("audit.jsonl")
        let log = AuditLog(path: path, maxBytes: 1 << 20, generations: 2, logger: Logger(label: "test"))
        let client = AuditRecord.clientObject(Self.client)
        let line = AuditRecord(method: "location.get", client: Self.client, status: .authorized, accuracy: .full)
            .jsonLine(client: client)
        var lines = AuditLines()
        for _ in 0..<(AuditLog.syncEvery - 1) { lines.append(line) }
        log.append(lines)
        #expect(log.lastBackgroundSync == nil)  // not yet syncEvery records
        var one = AuditLines()
        one.append(line)
        log.append(one)
        let sync = try #require(log.lastBackgroundSync)
        let closed = try await sync.get()
        // The duplicate is closed (its number may since name another test's file, never the log).
        let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(closed)")
        #expect(target != path)
        let written = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n")
        #expect(written.count == AuditLog.syncEvery)
    }
}
