import Glibc
import DeliveryTestSupport
import Foundation
import PetSpotOutbox
import Testing
import TestSupport

/// Enqueue under `kill -9` at random points: every report the enqueue call
/// acknowledged is in the database with its photo, and no photo is left
/// without its row.
@Suite("Outbox crash consistency")
struct OutboxCrashTests {
    @Test func everyAcknowledgedReportSurvivesKillNine() async throws {
        let work = try TemporaryDirectory(prefix: "crash")
        defer { work.remove() }
        let photo = ReportFixtures.photo(extra: 64 << 10)
        let photoPath = try ReportFixtures.write(photo, to: work.path)
        let directory = work.file("outbox")
        var acknowledged: [String] = []
        var generator = SystemRandomNumberGenerator()
        let kills = Int(ProcessInfo.processInfo.environment["PETSPOT_CRASH_KILLS"] ?? "") ?? 120
        var killedAfterAck = 0
        // Calibration: how long this machine takes to the first acknowledged report.
        let probe = try ChildProcess(
            RepositoryPaths.executable("petspot-test-enqueue-loop"), [directory, photoPath])
        let probeStart = Date()
        #expect(probe.waitForStdout(containing: "ACK ", timeout: 60), "\(probe.errors())")
        let firstAck = Date().timeIntervalSince(probeStart)
        probe.signal(SIGKILL)
        _ = probe.wait(timeout: 10)
        acknowledged += probe.output().split(separator: "\n").filter { $0.hasPrefix("ACK ") }.map {
            String($0.dropFirst(4))
        }
        // Kill points from before the first report to several reports in (wide:
        // the load on the machine may change after the calibration, and too
        // short a window lands too few kills after an acknowledged report).
        let window = UInt32(max(0.12, 6 * firstAck) * 1_000_000)
        for round in 0..<kills {
            let child = try ChildProcess(
                RepositoryPaths.executable("petspot-test-enqueue-loop"), [directory, photoPath])
            // Random points: while opening (cleanup, import), between reports, inside an enqueue.
            let delay = UInt32.random(in: 0...window, using: &generator)
            usleep(delay)
            child.signal(SIGKILL)
            _ = child.wait(timeout: 10)
            let acks = child.output().split(separator: "\n").filter { $0.hasPrefix("ACK ") }.map {
                String($0.dropFirst(4))
            }
            if !acks.isEmpty { killedAfterAck += 1 }
            acknowledged += acks
            if round % 40 == 39 { try await check(directory: directory, acknowledged: acknowledged, photo: photo) }
        }
        try await check(directory: directory, acknowledged: acknowledged, photo: photo)
        print(
            "crash consistency: first report after \(Int(firstAck * 1000)) ms; \(kills) kills, \(killedAfterAck) after at least one acknowledged report, \(acknowledged.count) acknowledged reports"
        )
        #expect(acknowledged.count > 0)
        #expect(
            killedAfterAck >= kills / 4,
            "too few kills landed after an enqueue: the delays are too short for this machine")
    }

    /// Opens the outbox as the next process would (crash leftovers removed) and checks it.
    private func check(directory: String, acknowledged: [String], photo: [UInt8]) async throws {
        let outbox = try Outbox.open(directory: directory)
        defer { try? outbox.close() }
        let rows = Set(try await outbox.entries(limit: 1_000_000).map(\.id))
        let photos = Set(try FileManager.default.contentsOfDirectory(atPath: directory + "/photos"))
        for id in acknowledged {
            #expect(rows.contains(id), "acknowledged \(id) is not in the database")
            let file = "\(id).png"  // ReportFixtures.report, which the helper queues
            #expect(photos.contains(file), "acknowledged \(id) has no photo")
            if photos.contains(file) {
                #expect(FileManager.default.contents(atPath: "\(directory)/photos/\(file)") == Data(photo))
            }
        }
        // No photo without a row (and no temporary file) once opened.
        #expect(
            photos == Set(rows.map { "\($0).png" }),
            "photos without rows: \(photos.subtracting(rows.map { "\($0).png" }))")
        // Every row has its photo.
        #expect(rows.count == photos.count)
    }
}
