import CSQLite
import DeliveryTestSupport
import Foundation
import PetSpotOutbox
import PetSpotReport
import Testing
import TestSupport

/// A fresh outbox directory and a photo file for one test.
struct OutboxWorkspace {
    let scratch: TemporaryDirectory
    let photoBytes: [UInt8]
    let photoPath: String
    var directory: String { scratch.file("outbox") }

    init(photoSize: Int = 4096) throws {
        scratch = try TemporaryDirectory(prefix: "outbox")
        photoBytes = ReportFixtures.photo(extra: photoSize)
        photoPath = try ReportFixtures.write(photoBytes, to: scratch.path)
    }

    func open() throws -> Outbox { try Outbox.open(directory: directory) }

    func report(createdAt: Date = Date()) -> FoundPetReport {
        ReportFixtures.report(createdAt: createdAt, photoBytes: photoBytes.count)
    }

    func photos() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory + "/photos"))?.sorted() ?? []
    }
}

@Suite("Outbox: queue, durability, crash leftovers, import, corruption")
struct OutboxTests {
    /// SQLite's page cache is held small (issue 41): at its default (2 MB)
    /// it grew the kiosk by ~640 bytes a report until full, as the database grew.
    @Test func thePageCacheIsBounded() throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        let outbox = try work.open()
        #expect(try outbox.pageCacheSetting() == -Outbox.pageCacheKiB)
        #expect(Outbox.pageCacheKiB <= 256)
    }

    @Test func enqueueStoresTheAnnouncementThePhotoAndTheStationOnlyData() async throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        let outbox = try work.open()
        let report = work.report()
        let id = try await outbox.enqueue(report: report, photoFile: work.photoPath)
        #expect(id == report.id)
        let key = id.uuidString.lowercased()
        let stored = try #require(try await outbox.stored(key))
        #expect(stored.announcement == (try FoundPetAnnouncement(report).jsonData()))
        let stationOnly = try JSONDecoder().decode(FoundPetStationOnlyData.self, from: try #require(stored.stationOnly))
        #expect(
            stationOnly
                == FoundPetStationOnlyData(
                    caregiverPhone: ReportFixtures.caregiverPhone, address: ReportFixtures.address))
        #expect(work.photos() == ["\(key).png"])
        #expect(FileManager.default.contents(atPath: "\(work.directory)/photos/\(key).png") == Data(work.photoBytes))
        let entries = try await outbox.entries()
        #expect(entries.map(\.id) == [key])
        #expect(entries.first?.state == .pending && entries.first?.attempts == 0)
        #expect(entries.first?.photoBytes == work.photoBytes.count)

        // Queuing the same report again changes nothing.
        _ = try await outbox.enqueue(report: report, photoFile: work.photoPath)
        #expect(try await outbox.entries().count == 1)
        // And it survives closing and reopening.
        try outbox.close()
        let reopened = try work.open()
        #expect(try await reopened.entries().map(\.id) == [key])
        #expect(reopened.openingNotes.isEmpty)
    }

    @Test func theDatabaseIsWALWithFullSync() throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        let outbox = try work.open()
        #expect(FileManager.default.fileExists(atPath: outbox.databasePath + "-wal"))
        let settings = try outbox.durabilitySettings()
        #expect(settings.journalMode == "wal")
        #expect(settings.synchronous == 2)  // FULL
        #expect(settings.secureDelete == 1)
    }

    /// A station's outbox from before the move from GRDB to SQLite itself:
    /// GRDB's migrator kept its own table (`grdb_migrations`, "v1: report") and
    /// left `user_version` at 0. Its reports are still there, and it is not migrated twice.
    @Test func anOutboxMadeThroughGRDBOpensWithItsReports() async throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        try FileManager.default.createDirectory(atPath: work.directory + "/photos", withIntermediateDirectories: true)
        let id = UUID().uuidString.lowercased()
        try ReportFixtures.write(work.photoBytes, to: work.directory + "/photos", name: "\(id).png")
        var db: OpaquePointer?
        #expect(sqlite3_open(work.directory + "/" + Outbox.databaseFileName, &db) == SQLITE_OK)
        let made = sqlite3_exec(
            db,
            """
            PRAGMA journal_mode = WAL;
            CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
            INSERT INTO grdb_migrations VALUES ('v1: report');
            \(Outbox.migrations[0])
            INSERT INTO report (id, createdAt, enqueuedAt, state, announcement, photoFile, photoMimeType, photoBytes,
                                nextAttemptAt)
            VALUES ('\(id)', 1, 1, 'pending', x'7b7d', '\(id).png', 'image/png', \(work.photoBytes.count), 1);
            """, nil, nil, nil)
        #expect(made == SQLITE_OK)
        sqlite3_close(db)

        let outbox = try work.open()
        #expect(outbox.openingNotes.isEmpty)
        #expect(try await outbox.entries().map(\.id) == [id])
        #expect(work.photos() == ["\(id).png"])
        try outbox.close()
        // Opened again: the schema is at its version, nothing is created twice.
        let again = try work.open()
        #expect(try await again.summary().pending == 1)
        try again.close()
    }

    @Test func openingRemovesPhotosWithoutARowAndTemporaryFiles() async throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        let outbox = try work.open()
        let report = work.report()
        try await outbox.enqueue(report: report, photoFile: work.photoPath)
        try outbox.close()
        try ReportFixtures.write(
            [1, 2, 3], to: work.directory + "/photos", name: "\(UUID().uuidString.lowercased()).png")
        try ReportFixtures.write([1, 2, 3], to: work.directory + "/photos", name: ".tmp-x.png")
        let reopened = try work.open()
        #expect(reopened.openingNotes == [.removedOrphanPhotos(count: 2)])
        #expect(work.photos() == ["\(report.id.uuidString.lowercased()).png"])
    }

    @Test func openingImportsJSONAndPhotoPairsOnce() async throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        // What `petspot-report found --outbox DIR` wrote before this outbox existed.
        let legacy = FoundPetOutbox(directory: URL(fileURLWithPath: work.directory))
        let draft = PhotoDraft(
            file: URL(fileURLWithPath: work.photoPath), info: PhotoInfo(format: .png, width: 640, height: 480),
            byteCount: work.photoBytes.count)
        let older = work.report(createdAt: Date(timeIntervalSince1970: 1_700_000_000))
        let newer = work.report(createdAt: Date(timeIntervalSince1970: 1_700_000_100))
        try legacy.write(newer, photo: draft)
        try legacy.write(older, photo: draft)
        try "{\"not\": \"a report\"}".write(toFile: work.directory + "/junk.json", atomically: true, encoding: .utf8)

        let outbox = try work.open()
        #expect(outbox.openingNotes.first == .imported(count: 2))
        #expect(
            outbox.openingNotes.contains { if case .importFailed(file: "junk.json", _) = $0 { true } else { false } })
        let entries = try await outbox.entries()
        #expect(entries.map(\.id) == [older, newer].map { $0.id.uuidString.lowercased() })
        let left = try FileManager.default.contentsOfDirectory(atPath: work.directory).sorted()
        #expect(left.filter { $0.hasSuffix(".json") || $0.hasSuffix(".png") } == ["junk.json"])
        #expect(work.photos().count == 2)
        let stored = try #require(try await outbox.stored(older.id.uuidString.lowercased()))
        #expect(stored.announcement == (try FoundPetAnnouncement(older).jsonData()))
        try outbox.close()
        // Once: reopening imports nothing more.
        let reopened = try work.open()
        #expect(!reopened.openingNotes.contains { if case .imported = $0 { true } else { false } })
        #expect(try await reopened.entries().count == 2)
    }

    @Test(arguments: ["garbage", "damaged page"])
    func aCorruptDatabaseIsMovedAsideAndReported(kind: String) async throws {
        let work = try OutboxWorkspace()
        defer { work.scratch.remove() }
        let outbox = try work.open()
        for _ in 0..<50 { try await outbox.enqueue(report: work.report(), photoFile: work.photoPath) }
        try outbox.close()
        let database = work.directory + "/outbox.sqlite"
        var bytes = try #require(FileManager.default.contents(atPath: database))
        if kind == "garbage" {
            bytes = Data(repeating: 0x5A, count: bytes.count)
        } else {
            // Page 2 onwards overwritten: the header still says SQLite.
            for index in 4096..<min(bytes.count, 12288) { bytes[index] = 0xA5 }
        }
        try bytes.write(to: URL(fileURLWithPath: database))

        let reopened = try work.open()
        guard case .movedCorruptDatabaseAside(let movedDatabase, let movedPhotos, _) = reopened.openingNotes.first
        else {
            Issue.record("not moved aside: \(reopened.openingNotes)")
            return
        }
        #expect(movedDatabase.hasPrefix("outbox.sqlite.corrupt-"))
        // Moved, not emptied: the bytes are there for recovery (SQLite may have
        // added a page while checking a damaged file), photos too.
        let moved = try #require(FileManager.default.contents(atPath: work.directory + "/" + movedDatabase))
        #expect(moved.count >= bytes.count)
        if kind == "garbage" { #expect(moved == bytes) }
        #expect(moved[4096..<8192] == bytes[4096..<8192])
        let photos = try #require(movedPhotos)
        #expect(try FileManager.default.contentsOfDirectory(atPath: work.directory + "/" + photos).count == 50)
        #expect(try await reopened.entries().isEmpty)
        #expect(try await reopened.summary().corruptDatabases == [movedDatabase])
        // The new outbox works.
        try await reopened.enqueue(report: work.report(), photoFile: work.photoPath)
        #expect(try await reopened.summary().pending == 1)
    }

    @Test func aFullDiskLeavesNothingHalfWritten() async throws {
        let scratch = try TemporaryDirectory(prefix: "outbox-full")
        defer { scratch.remove() }
        let mountPoint = scratch.file("disk")
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard (try? ChildProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", mountPoint]))?.status == 0
        else {
            print("aFullDiskLeavesNothingHalfWritten: skipped (cannot mount a small tmpfs here)")
            return
        }
        defer { _ = try? ChildProcess.run("/bin/umount", ["-l", mountPoint]) }
        let big = ReportFixtures.photo(extra: 2 << 20)
        let bigPath = try ReportFixtures.write(big, to: scratch.path, name: "big.png")
        let small = ReportFixtures.photo(extra: 1000)
        let smallPath = try ReportFixtures.write(small, to: scratch.path, name: "small.png")

        // The free-space check refuses before writing anything.
        let checked = try Outbox.open(directory: mountPoint + "/checked")
        await #expect(throws: OutboxError.self) {
            try await checked.enqueue(report: ReportFixtures.report(photoBytes: big.count), photoFile: bigPath)
        }
        try checked.close()

        // Without the check (reserve 0, a size that lies), the write itself hits ENOSPC.
        var options = Outbox.Options()
        options.reserveBytes = 0
        options.importsLegacyFiles = false
        let outbox = try Outbox.open(directory: mountPoint + "/raw", options: options)
        do {
            try await outbox.enqueue(report: ReportFixtures.report(photoBytes: 10), photoFile: bigPath)
            Issue.record("a 2 MiB photo fit on a 1 MiB disk")
        } catch {
            #expect(error.isStorageFull, "\(error)")
            #expect(error.description.hasPrefix("The station's storage is full"))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: mountPoint + "/raw/photos") == [])
        #expect(try await outbox.entries().isEmpty)
        // Room again: the next report goes in.
        try await outbox.enqueue(report: ReportFixtures.report(photoBytes: small.count), photoFile: smallPath)
        #expect(try await outbox.summary().pending == 1)
        try outbox.close()
    }
}
