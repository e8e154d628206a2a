import Glibc
import FoundationEssentials
import CSQLite
import PetSpotReport

extension Outbox {
    /// Why opening the database failed.
    enum OpenFailure: Error {
        /// The file is not a readable SQLite database (or fails its check).
        case corrupt(String)
        case other(OutboxError)

        var outboxError: OutboxError {
            switch self {
            case .corrupt(let reason): .database("corrupt: \(reason)")
            case .other(let error): error
            }
        }
    }

    /// The schema, by numbered migrations: version `n` is
    /// `migrations[n - 1]`, and `PRAGMA user_version` is the last one applied.
    package static let migrations = [
        """
        CREATE TABLE report (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id TEXT NOT NULL UNIQUE,
            createdAt DOUBLE NOT NULL,
            enqueuedAt DOUBLE NOT NULL,
            state TEXT NOT NULL CHECK (state IN ('pending', 'delivering', 'delivered', 'rejected')),
            announcement BLOB,
            stationOnly BLOB,
            photoFile TEXT,
            photoMimeType TEXT NOT NULL,
            photoBytes INTEGER NOT NULL,
            attempts INTEGER NOT NULL DEFAULT 0,
            nextAttemptAt DOUBLE,
            lastAttemptAt DOUBLE,
            lastStatus INTEGER,
            lastError TEXT,
            deliveredAt DOUBLE,
            rejectedAt DOUBLE,
            backendReference TEXT,
            purgedAt DOUBLE
        );
        CREATE INDEX report_due ON report (state, nextAttemptAt);
        CREATE INDEX report_order ON report (state, createdAt, seq);
        """
    ]

    /// Applies the migrations the database has not had yet, in one transaction.
    ///
    /// A database made by an earlier version (through GRDB's `DatabaseMigrator`, which kept
    /// its own `grdb_migrations` table and left `user_version` at 0) has
    /// the `report` table of version 1: it counts as version 1.
    static func migrate(_ db: Database) throws(DatabaseError) {
        do {
            try db.inImmediateTransaction { () throws(DatabaseError) in
                var version = try db.fetchValue(Int.self, sql: "PRAGMA user_version") ?? 0
                if version == 0,
                    try db.fetchValue(
                        Bool.self, sql: "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'report'") == true
                {
                    version = 1
                }
                guard version < migrations.count else { return }
                for sql in migrations[version...] { try db.execute(script: sql) }
                try db.execute(script: "PRAGMA user_version = \(migrations.count)")
            }
        } catch {
            switch error {
            case .body(let failure), .database(let failure): throw failure
            }
        }
    }

    static func openDatabase(path: String, options: Options) throws(OpenFailure) -> DatabaseQueue {
        let db: Database
        do {
            db = try Database(path: path, busyTimeout: .milliseconds(Int64(options.busyTimeout * 1000)))
        } catch {
            throw classify(error)
        }
        do {
            // Every commit reaches the disk before it returns (WAL + FULL).
            try db.execute(script: "PRAGMA synchronous = FULL")
            // Deleted and overwritten content is zeroed in its page, not left
            // in free space (FR-016: personal data leaves the disk; see
            // ``Outbox/eraseFromJournal()`` for the WAL).
            try db.execute(script: "PRAGMA secure_delete = ON")
            // SQLite's page cache, bounded small: the outbox's working set is
            // the few pending reports (SQLite's default, 2 MB, grew the
            // kiosk by up to that much as the database filled).
            try db.execute(script: "PRAGMA cache_size = -\(Outbox.pageCacheKiB)")
            // The first statement to read the file: a file that is not a database fails here.
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            let check = try db.fetchColumn(String.self, sql: "PRAGMA quick_check")
            guard check == ["ok"] else {
                db.close()
                throw OpenFailure.corrupt("quick_check: \(check.prefix(3).joined(separator: "; "))")
            }
            try migrate(db)
            let mode = try db.fetchValue(String.self, sql: "PRAGMA journal_mode")
            guard mode?.lowercased() == "wal" else {
                throw OpenFailure.other(.database("journal_mode is \(mode ?? "unknown"), not wal"))
            }
        } catch let failure as OpenFailure {
            db.close()
            throw failure
        } catch {
            db.close()
            throw classify(error)
        }
        return DatabaseQueue(database: db, label: "PetSpotOutbox")
    }

    private static func classify(_ error: any Error) -> OpenFailure {
        if let database = error as? DatabaseError, [SQLITE_CORRUPT, SQLITE_NOTADB].contains(database.resultCode) {
            return .corrupt(database.message ?? "SQLite result code \(database.extendedResultCode)")
        }
        return .other(OutboxError(error))
    }

    /// Renames the database (and its -wal / -shm files) and the photos
    /// directory to `….corrupt-<UTC time>`, and creates an empty photos directory.
    static func moveAside(directory: String) throws(OutboxError) -> (database: String, photos: String?) {
        // yyyyMMdd'T'HHmmss'Z' (UTC).
        let format = Date.ISO8601FormatStyle(dateSeparator: .omitted, timeSeparator: .omitted, timeZone: .gmt)
        let now = Date()
        var stamp = now.formatted(format)
        var suffix = 1
        while DurableFiles.exists("\(directory)/\(databaseFileName).corrupt-\(stamp)") {
            suffix += 1
            stamp = now.formatted(format) + "-\(suffix)"
        }
        let database = "\(databaseFileName).corrupt-\(stamp)"
        for extra in ["-wal", "-shm"] where DurableFiles.exists("\(directory)/\(databaseFileName)\(extra)") {
            guard rename("\(directory)/\(databaseFileName)\(extra)", "\(directory)/\(database)\(extra)") == 0 else {
                throw DurableFiles.failure("cannot move \(databaseFileName)\(extra) aside")
            }
        }
        guard rename("\(directory)/\(databaseFileName)", "\(directory)/\(database)") == 0 else {
            throw DurableFiles.failure("cannot move the corrupt \(databaseFileName) aside")
        }
        var photos: String?
        if ((try? DurableFiles.entries(of: "\(directory)/photos")) ?? []).isEmpty == false {
            let name = "photos.corrupt-\(stamp)"
            guard rename("\(directory)/photos", "\(directory)/\(name)") == 0 else {
                throw DurableFiles.failure("cannot move the photos aside")
            }
            photos = name
            try DurableFiles.makeDirectory("\(directory)/photos")
        }
        try DurableFiles.syncDirectory(directory)
        return (database, photos)
    }

    /// The corrupt databases moved aside so far (file names, oldest first).
    func corruptDatabases() -> [String] {
        ((try? DurableFiles.entries(of: directory)) ?? []).filter {
            $0.hasPrefix("\(Self.databaseFileName).corrupt-") && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
        }
    }

    // MARK: Crash leftovers

    /// Deletes photo files that no row names, and temporary files: what a
    /// crash between writing a photo and committing its row leaves. Runs in
    /// a write transaction, so no enqueue is between those two steps.
    /// - Returns: how many files were deleted.
    func removeOrphanPhotos() throws(OutboxError) -> Int {
        let photos = photosDirectory
        return try writeSynchronously { db throws(OutboxError) in
            let owned: Set<String>
            do {
                owned = Set(
                    try db.fetchColumn(String.self, sql: "SELECT photoFile FROM report WHERE photoFile IS NOT NULL"))
            } catch {
                throw OutboxError(error)
            }
            var removed = 0
            for name in try DurableFiles.entries(of: photos) where !owned.contains(name) {
                if unlink("\(photos)/\(name)") == 0 { removed += 1 }
            }
            if removed > 0 { try DurableFiles.syncDirectory(photos) }
            return removed
        }
    }

    // MARK: Import

    /// Queues every `<id>.json` + photo pair lying directly in the directory
    /// (``FoundPetOutbox``'s format), then deletes the pair. A pair already
    /// queued (a crash after its commit) is only deleted.
    func importLegacyFiles() throws(OutboxError) -> [OpeningNote] {
        var notes: [OpeningNote] = []
        var imported = 0
        for name in try DurableFiles.entries(of: directory) where name.hasSuffix(".json") {
            let path = "\(directory)/\(name)"
            guard DurableFiles.isRegularFile(path) else { continue }
            let report: FoundPetReport
            do {
                report = try FoundPetReport.decode(Data(try DurableFiles.readSmallFile(path, limit: 1 << 20)))
            } catch {
                notes.append(.importFailed(file: name, reason: "not a found-pet report: \(error)"))
                continue
            }
            let photo = "\(directory)/\(report.photo.file)"
            guard !report.photo.file.contains("/"), DurableFiles.isRegularFile(photo) else {
                notes.append(.importFailed(file: name, reason: "its photo \(report.photo.file) is missing"))
                continue
            }
            do {
                let createdAt = report.createdAt
                try enqueueSynchronously(report: report, photoFile: photo, enqueuedAt: max(createdAt, Date()))
                imported += 1
            } catch {
                notes.append(.importFailed(file: name, reason: error.description))
                continue
            }
            // Queued and durable: the pair may go (JSON first, so a crash leaves no report twice).
            unlink(path)
            unlink(photo)
            try? DurableFiles.syncDirectory(directory)
        }
        if imported > 0 { notes.insert(.imported(count: imported), at: 0) }
        return notes
    }
}

extension Outbox {
    /// SQLite's `cache_size` on the outbox's connection, as it reads it
    /// (negative: KiB), so tests can hold the bound.
    package func pageCacheSetting() throws -> Int {
        try database.sync { db in try db.fetchValue(Int.self, sql: "PRAGMA cache_size") ?? 0 }
    }

    /// The connection's `journal_mode`, `synchronous` (2: FULL) and
    /// `secure_delete` (1: on), as SQLite reads them, so tests can hold the durability contract.
    package func durabilitySettings() throws -> (journalMode: String, synchronous: Int, secureDelete: Int) {
        try database.sync { db in
            (
                try db.fetchValue(String.self, sql: "PRAGMA journal_mode") ?? "",
                try db.fetchValue(Int.self, sql: "PRAGMA synchronous") ?? -1,
                try db.fetchValue(Int.self, sql: "PRAGMA secure_delete") ?? -1
            )
        }
    }
}
