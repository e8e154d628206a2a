import Foundation
import Testing
import TestSupport

/// `petspot-report found` driven through standard input against a running
/// daemon with a simulated source: the kiosk flow end to end.
@Suite("petspot-report found against the daemon")
struct ReportKioskTests {
    /// A minimal PNG (signature, IHDR 640×480, IEND).
    static let png: [UInt8] = {
        func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8) + be32(640)
            + be32(480) + [8, 2, 0, 0, 0] + [0, 0, 0, 0] + be32(0) + Array("IEND".utf8) + [0xAE, 0x42, 0x60, 0x82]
    }()

    @Test("Use GPS fills latitude and longitude from the daemon and the report lands in the outbox")
    func kioskFlowWithDaemon() throws {
        let daemon = try Fixtures.daemon(scenario: Fixtures.singleFix)
        defer { daemon.stop() }
        let work = try TemporaryDirectory()
        defer { work.remove() }
        let photo = work.file("found.png")
        #expect(FileManager.default.createFile(atPath: photo, contents: Data(Self.png)))
        let outbox = work.file("outbox")
        let answers = [
            photo, "today", "cat", "European shorthair", "female", "2", "gps",
            "", "Mruczek", "Grey, friendly", "600123456", "finder@example.com", "", "", "",
        ]
        let run = try ChildProcess.run(
            RepositoryPaths.executable("petspot-report"),
            ["found", "--socket", daemon.socketPath, "--outbox", outbox],
            input: answers.joined(separator: "\n") + "\n", timeout: 60,
            environment: ["XDG_CACHE_HOME": work.file("cache")])
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("Location: -33.868800, 151.209300"))
        let reports = try FileManager.default.contentsOfDirectory(atPath: outbox).filter { $0.hasSuffix(".json") }
        #expect(reports.count == 1)
        let data = try Data(contentsOf: URL(fileURLWithPath: outbox + "/" + reports[0]))
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let text = String(decoding: data, as: UTF8.self)
        #expect(text.contains("-33.8688"), "\(text)")
        #expect(text.contains("151.2093"))
        #expect(text.contains("finder@example.com"))
        #expect(report.isEmpty == false)
        let photos = try FileManager.default.contentsOfDirectory(atPath: outbox).filter { $0.hasSuffix(".png") }
        #expect(photos.count == 1)
    }
}
