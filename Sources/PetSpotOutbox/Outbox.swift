import Glibc
import FoundationEssentials
import CSQLite
import PetSpotReport

/// The station's durable queue of found-pet reports on their way to the
/// PetSpot backend (SPEC §8).
///
/// A directory holding `outbox.sqlite` (Debian's SQLite, ``Database``: WAL,
/// `synchronous=FULL`) and `photos/`. ``enqueue(report:photo:)`` writes the
/// photo file and fsyncs it and its directory, then commits the row, all
/// inside one write transaction: once it returns, the report survives
/// `kill -9` and power loss, and no other process can see a photo without
/// its row. Opening the outbox (``open(directory:options:)``):
///
/// - moves a corrupt database aside (`outbox.sqlite.corrupt-<time>`, its
///   photos to `photos.corrupt-<time>`) and starts a new one, never emptying
///   it silently (``OpeningNote/movedCorruptDatabaseAside(database:photos:reason:)``);
/// - deletes photo files without a row (left by a crash before a commit);
/// - imports, once, JSON + photo pairs lying in the directory (what
///   `petspot-report found --outbox DIR` writes), deleting them after.
///
/// Any number of processes may open the same outbox; writes are serialised
/// by SQLite. One sender at a time (``OutboxSenderLock``).
public final class Outbox: Sendable {
    /// How the outbox is opened.
    public struct Options: Sendable {
        /// Largest photo accepted (the draft cache's limit).
        public var maximumPhotoBytes = 25 << 20
        /// Free space kept on the disk beyond the photo (SQLite needs room for its WAL).
        public var reserveBytes: Int64 = 4 << 20
        /// Import JSON + photo pairs found in the directory.
        public var importsLegacyFiles = true
        /// How long a write waits for another process's transaction.
        public var busyTimeout: TimeInterval = 10

        public init() {}
    }

    /// Something the operator should know about the opening.
    public enum OpeningNote: Sendable, Hashable, CustomStringConvertible {
        /// The database could not be read: it was moved aside and a new one created.
        case movedCorruptDatabaseAside(database: String, photos: String?, reason: String)
        /// Photo files without a report were deleted.
        case removedOrphanPhotos(count: Int)
        /// Reports imported from JSON + photo pairs.
        case imported(count: Int)
        /// A JSON file in the directory that could not be imported (left in place).
        case importFailed(file: String, reason: String)

        public var description: String {
            switch self {
            case .movedCorruptDatabaseAside(let database, let photos, let reason):
                "the outbox database was corrupt (\(reason)): moved aside to \(database)"
                    + (photos.map { ", its photos to \($0)" } ?? "") + "; a new, empty outbox was created"
            case .removedOrphanPhotos(let count): "deleted \(count) photo file(s) without a report (left by a crash)"
            case .imported(let count): "imported \(count) report(s) from JSON + photo files"
            case .importFailed(let file, let reason): "not imported: \(file): \(reason)"
            }
        }
    }

    /// The outbox directory.
    public let directory: String
    /// `directory/outbox.sqlite`.
    public let databasePath: String
    /// `directory/photos`.
    public let photosDirectory: String
    /// What happened while opening.
    public let openingNotes: [OpeningNote]
    let options: Options
    let database: DatabaseQueue
    /// Wakes an in-process sender when a report is queued.
    let enqueueObservers = OutboxObservers()

    /// The database file's name in the directory.
    public static let databaseFileName = "outbox.sqlite"
    /// SQLite's page cache for the outbox's one connection, in KiB (`PRAGMA cache_size`).
    public static let pageCacheKiB = 256

    private init(
        directory: String, options: Options, database: DatabaseQueue, notes: [OpeningNote]
    ) {
        self.directory = directory
        self.databasePath = "\(directory)/\(Self.databaseFileName)"
        self.photosDirectory = "\(directory)/photos"
        self.options = options
        self.database = database
        self.openingNotes = notes
    }

    /// Opens (creating when missing) the outbox in `directory`.
    /// - Throws: ``OutboxError`` when the directory or database cannot be used.
    public static func open(directory: String, options: Options = Options()) throws(OutboxError) -> Outbox {
        let directory = directory.count > 1 && directory.hasSuffix("/") ? String(directory.dropLast()) : directory
        try DurableFiles.makeDirectory(directory)
        try DurableFiles.makeDirectory("\(directory)/photos")
        var notes: [OpeningNote] = []
        let databasePath = "\(directory)/\(databaseFileName)"
        if !DurableFiles.exists(databasePath) {
            // Personal data: owner only. SQLite gives the -wal and -shm files the same mode.
            DurableFiles.createEmpty(databasePath, mode: 0o600)
        }
        let database: DatabaseQueue
        do {
            database = try openDatabase(path: databasePath, options: options)
        } catch .corrupt(let reason) {
            let moved = try moveAside(directory: directory)
            notes.append(.movedCorruptDatabaseAside(database: moved.database, photos: moved.photos, reason: reason))
            do {
                database = try openDatabase(path: databasePath, options: options)
            } catch {
                throw error.outboxError
            }
        } catch {
            throw error.outboxError
        }
        try DurableFiles.syncDirectory(directory)
        let outbox = Outbox(directory: directory, options: options, database: database, notes: [])
        let removed = try outbox.removeOrphanPhotos()
        if removed > 0 { notes.append(.removedOrphanPhotos(count: removed)) }
        if options.importsLegacyFiles { notes += try outbox.importLegacyFiles() }
        return Outbox(directory: directory, options: options, database: database, notes: notes)
    }

    // MARK: Enqueue

    /// Queues `report` with a durable copy of its draft photo.
    ///
    /// Queuing a report whose id is already queued changes nothing.
    /// - Returns: the report id.
    /// - Throws: ``OutboxError``: ``OutboxError/storageFull(detail:)`` when
    ///   the disk is full; nothing is left half-written.
    @discardableResult
    public func enqueue(report: FoundPetReport, photo: PhotoDraft) async throws(OutboxError) -> UUID {
        try await enqueue(report: report, photoFile: photo.file.path)
    }

    /// Queues `report` with a durable copy of the photo file at `photoFile`.
    @discardableResult
    public func enqueue(
        report: FoundPetReport, photoFile: String, enqueuedAt: Date = Date()
    ) async throws(OutboxError) -> UUID {
        let (prepared, insert) = try insertion(of: report, photoFile: photoFile, enqueuedAt: enqueuedAt)
        do {
            try await write(insert)
        } catch {
            removeUnownedPhoto(prepared)
            throw error
        }
        return enqueued(report)
    }

    /// The same as ``enqueue(report:photoFile:enqueuedAt:)``, blocking the calling thread.
    @discardableResult
    public func enqueueSynchronously(
        report: FoundPetReport, photoFile: String, enqueuedAt: Date = Date()
    ) throws(OutboxError) -> UUID {
        let (prepared, insert) = try insertion(of: report, photoFile: photoFile, enqueuedAt: enqueuedAt)
        do {
            try writeSynchronously(insert)
        } catch {
            removeUnownedPhoto(prepared)
            throw error
        }
        return enqueued(report)
    }

    /// The checks before a report is queued (encodable, disk space), and the
    /// transaction body that inserts it.
    private func insertion(
        of report: FoundPetReport, photoFile: String, enqueuedAt: Date
    ) throws(OutboxError) -> (Prepared, @Sendable (Database) throws(OutboxError) -> Void) {
        let prepared = try Prepared(report: report, directory: photosDirectory)
        try checkFreeSpace(for: report.photo.bytes)
        let options = self.options
        let photos = photosDirectory
        return (
            prepared,
            { db throws(OutboxError) in
                try Self.insert(
                    prepared, photoSource: photoFile, photos: photos, options: options, enqueuedAt: enqueuedAt, db)
            }
        )
    }

    /// A report is in the outbox: wakes the senders.
    private func enqueued(_ report: FoundPetReport) -> UUID {
        enqueueObservers.notify()
        return report.id
    }

    /// Calls `observer` after each report this process queues (a sender's wake-up).
    /// - Returns: a token; the observer stays until ``removeObserver(_:)``.
    package func observeEnqueues(_ observer: @escaping @Sendable () -> Void) -> Int {
        enqueueObservers.add(observer)
    }

    package func removeObserver(_ token: Int) { enqueueObservers.remove(token) }

    /// A report checked and encoded, ready to insert.
    struct Prepared: Sendable {
        var id: String
        var createdAt: Double
        var announcement: Data
        var stationOnly: Data?
        var photoFile: String
        var photoMimeType: String
        var photoBytes: Int

        init(report: FoundPetReport, directory: String) throws(OutboxError) {
            id = report.id.uuidString.lowercased()
            createdAt = report.createdAt.timeIntervalSince1970
            let name = report.photo.file
            guard !name.isEmpty, !name.contains("/"), !name.hasPrefix("."), name.utf8.count < 200 else {
                throw .invalidReport("bad photo file name \"\(name)\"")
            }
            photoFile = name
            photoMimeType = report.photo.mimeType
            photoBytes = report.photo.bytes
            do {
                announcement = try FoundPetAnnouncement(report).jsonData()
                stationOnly = try FoundPetStationOnlyData(report).map { try JSONEncoder().encode($0) }
            } catch {
                throw .invalidReport("cannot encode it: \(error)")
            }
        }
    }

    private static func insert(
        _ report: Prepared, photoSource: String, photos: String, options: Options, enqueuedAt: Date, _ db: Database
    ) throws(OutboxError) {
        do {
            if try db.fetchValue(Bool.self, sql: "SELECT 1 FROM report WHERE id = ?", arguments: [report.id]) == true {
                return
            }
        } catch {
            throw OutboxError(error)
        }
        let bytes = try DurableFiles.copy(
            from: photoSource, to: photos, name: report.photoFile, maximumBytes: options.maximumPhotoBytes)
        do {
            try db.execute(
                sql: """
                    INSERT INTO report (id, createdAt, enqueuedAt, state, announcement, stationOnly, photoFile,
                                        photoMimeType, photoBytes, attempts, nextAttemptAt)
                    VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?, 0, ?)
                    """,
                arguments: [
                    report.id, report.createdAt, enqueuedAt.timeIntervalSince1970, report.announcement,
                    report.stationOnly, report.photoFile, report.photoMimeType, bytes, enqueuedAt.timeIntervalSince1970,
                ])
        } catch {
            // The transaction rolls back; the photo must not outlive it.
            unlink("\(photos)/\(report.photoFile)")
            throw OutboxError(error)
        }
    }

    /// After a failed enqueue (the commit itself may have failed): deletes
    /// the photo unless a row owns it, so nothing half-written remains.
    private func removeUnownedPhoto(_ report: Prepared) {
        let owned = try? readSynchronously { db in
            try db.fetchValue(Bool.self, sql: "SELECT 1 FROM report WHERE id = ?", arguments: [report.id]) == true
        }
        if owned == false { unlink("\(photosDirectory)/\(report.photoFile)") }
    }

    private func checkFreeSpace(for photoBytes: Int) throws(OutboxError) {
        guard let free = DurableFiles.freeBytes(at: directory) else { return }
        let needed = Int64(photoBytes) + options.reserveBytes
        if free < needed {
            throw .storageFull(detail: "\(free) bytes free in \(directory), \(needed) needed")
        }
    }

    // MARK: Transactions

    /// Runs `body` in an IMMEDIATE transaction (the write lock taken at once,
    /// so that file work inside it is serialised with every other writer).
    func write<T: Sendable>(
        _ body: @escaping @Sendable (Database) throws(OutboxError) -> T
    ) async throws(OutboxError) -> T {
        try await database.async { db throws(OutboxError) in try Self.immediate(db, body) }
    }

    func writeSynchronously<T>(_ body: (Database) throws(OutboxError) -> T) throws(OutboxError) -> T {
        try database.sync { db throws(OutboxError) in try Self.immediate(db, body) }
    }

    private static func immediate<T>(
        _ db: Database, _ body: (Database) throws(OutboxError) -> T
    ) throws(OutboxError) -> T {
        do {
            return try db.inImmediateTransaction { () throws(OutboxError) in try body(db) }
        } catch {
            switch error {
            case .body(let failure): throw failure
            case .database(let failure): throw OutboxError(failure)
            }
        }
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws(OutboxError) -> T {
        do {
            return try await database.async(body)
        } catch {
            throw OutboxError(error)
        }
    }

    func readSynchronously<T>(_ body: (Database) throws -> T) throws(OutboxError) -> T {
        do {
            return try database.sync(body)
        } catch {
            throw OutboxError(error)
        }
    }

    /// Closes the database (pending work finishes first).
    public func close() throws(OutboxError) {
        database.close()
    }
}

extension OutboxError {
    /// An outbox error for any error thrown by SQLite or a transaction body.
    init(_ error: any Error) {
        if let outbox = error as? OutboxError {
            self = outbox
        } else if let database = error as? DatabaseError {
            switch database.resultCode {
            case SQLITE_FULL: self = .storageFull(detail: database.message ?? "database or disk is full")
            case SQLITE_IOERR where database.extendedResultCode == SQLITE_IOERR | (3 << 8):  // SQLITE_IOERR_WRITE
                self = .database("\(database.message ?? "I/O error") (is the disk full?)")
            default:
                self = .database("\(database.message ?? "error") (SQLite result code \(database.extendedResultCode))")
            }
        } else {
            self = .database("\(error)")
        }
    }
}
