import Glibc
import FoundationEssentials

/// A report handed to a sender: what to upload.
package struct ClaimedReport: Sendable, Hashable {
    package var id: UUID
    /// The `announcement` part's bytes (SPEC §8 JSON).
    package var announcement: Data
    /// The photo file's full path, and the name sent as the part's file name.
    package var photoPath: String
    package var photoFileName: String
    package var photoMimeType: String
    package var photoBytes: Int
    /// Attempts including this one.
    package var attempt: Int
}

/// The sender's side of the outbox: claim the oldest due report, then
/// record what the backend answered.
extension Outbox {
    /// Returns reports left `delivering` by a sender that is gone to
    /// `pending`, due at once. Call only while holding the ``OutboxSenderLock``.
    /// - Returns: how many were released.
    @discardableResult
    package func releaseInFlight(now: Date = Date()) async throws(OutboxError) -> Int {
        try await write { db throws(OutboxError) in
            do {
                try db.execute(
                    sql: "UPDATE report SET state = 'pending', nextAttemptAt = ? WHERE state = 'delivering'",
                    arguments: [now.timeIntervalSince1970])
                return db.changesCount
            } catch {
                throw OutboxError(error)
            }
        }
    }

    /// Marks the oldest due pending report `delivering` and returns it, or `nil` when none is due.
    package func claimNext(now: Date) async throws(OutboxError) -> ClaimedReport? {
        let photos = photosDirectory
        return try await write { db throws(OutboxError) in
            do {
                // `+nextAttemptAt`: walk report_order (state, createdAt, seq) in
                // order and stop at the first due row, instead of sorting every
                // pending row on each claim (a full queue of 10,000).
                guard
                    let row = try db.fetchOne(
                        sql: """
                            SELECT seq, id, announcement, photoFile, photoMimeType, photoBytes, attempts FROM report
                            WHERE state = 'pending' AND +nextAttemptAt <= ?
                            ORDER BY createdAt, seq LIMIT 1
                            """,
                        arguments: [now.timeIntervalSince1970])
                else { return nil }
                let seq: Int64 = row["seq"]
                let attempt = (row["attempts"] as Int) + 1
                try db.execute(
                    sql: "UPDATE report SET state = 'delivering', attempts = ?, lastAttemptAt = ? WHERE seq = ?",
                    arguments: [attempt, now.timeIntervalSince1970, seq])
                let file: String = row["photoFile"] ?? ""
                return ClaimedReport(
                    id: UUID(uuidString: row["id"]) ?? UUID(), announcement: row["announcement"] ?? Data(),
                    photoPath: "\(photos)/\(file)", photoFileName: file, photoMimeType: row["photoMimeType"],
                    photoBytes: row["photoBytes"], attempt: attempt)
            } catch {
                throw OutboxError(error)
            }
        }
    }

    /// When the next pending report is due, or `nil` when none is pending.
    package func nextDue() async throws(OutboxError) -> Date? {
        try await read { db in
            try db.fetchValue(Double.self, sql: "SELECT MIN(nextAttemptAt) FROM report WHERE state = 'pending'")
                .map(Date.init(timeIntervalSince1970:))
        }
    }

    /// Reports pending or being delivered.
    package func undeliveredCount() async throws(OutboxError) -> Int {
        try await read { db in
            try db.fetchValue(Int.self, sql: "SELECT COUNT(*) FROM report WHERE state IN ('pending', 'delivering')")
                ?? 0
        }
    }

    /// The backend has the report: keep its reference, drop the station-only
    /// data (FR-016), then erase it from the WAL (``eraseFromJournal()``).
    package func markDelivered(
        _ id: UUID, status: Int, reference: String?, note: String?, at now: Date
    ) async throws(OutboxError) {
        try await update(
            id,
            sql: """
                UPDATE report SET state = 'delivered', deliveredAt = ?, lastStatus = ?, backendReference = ?,
                    lastError = ?, stationOnly = NULL, nextAttemptAt = NULL
                WHERE id = ? AND state = 'delivering'
                """,
            [now.timeIntervalSince1970, status, reference, note])
        await eraseFromJournal()
    }

    /// The attempt failed in a way worth retrying: due again at `next`.
    package func markRetry(
        _ id: UUID, status: Int?, error: String, next: Date
    ) async throws(OutboxError) {
        try await update(
            id,
            sql: """
                UPDATE report SET state = 'pending', nextAttemptAt = ?, lastStatus = ?, lastError = ?
                WHERE id = ? AND state = 'delivering'
                """,
            [next.timeIntervalSince1970, status, error])
    }

    /// The backend refused the report: kept, never retried automatically.
    package func markRejected(_ id: UUID, status: Int?, error: String, at now: Date) async throws(OutboxError) {
        try await update(
            id,
            sql: """
                UPDATE report SET state = 'rejected', rejectedAt = ?, lastStatus = ?, lastError = ?, nextAttemptAt = NULL
                WHERE id = ? AND state = 'delivering'
                """,
            [now.timeIntervalSince1970, status, error])
    }

    /// The upload was abandoned (the sender is stopping): pending again, due at once.
    package func markAbandoned(_ id: UUID, at now: Date) async throws(OutboxError) {
        try await update(
            id, sql: "UPDATE report SET state = 'pending', nextAttemptAt = ? WHERE id = ? AND state = 'delivering'",
            [now.timeIntervalSince1970])
    }

    private func update(_ id: UUID, sql: String, _ values: [any DatabaseValueConvertible]) async throws(OutboxError) {
        let arguments = values + [id.uuidString.lowercased()]
        try await write { db throws(OutboxError) in
            do { try db.execute(sql: sql, arguments: arguments) } catch { throw OutboxError(error) }
        }
    }

    // MARK: Retention

    /// Deletes the photo and personal data of reports delivered before
    /// `cutoff`: only id, times and the backend reference remain, in the
    /// database file as in its WAL (``eraseFromJournal()``, which also runs
    /// when there was nothing to purge: it finishes an earlier one that
    /// another process's reader held up).
    /// - Returns: how many reports were purged.
    @discardableResult
    public func purgeDelivered(before cutoff: Date, now: Date = Date()) async throws(OutboxError) -> Int {
        let photos = photosDirectory
        let files = try await write { db throws(OutboxError) in
            do {
                let files = try db.fetchColumn(
                    String.self,
                    sql: """
                        SELECT COALESCE(photoFile, '') FROM report
                        WHERE state = 'delivered' AND purgedAt IS NULL AND deliveredAt < ?
                        """,
                    arguments: [cutoff.timeIntervalSince1970])
                guard !files.isEmpty else { return [String]() }
                try db.execute(
                    sql: """
                        UPDATE report SET announcement = NULL, stationOnly = NULL, photoFile = NULL, purgedAt = ?
                        WHERE state = 'delivered' AND purgedAt IS NULL AND deliveredAt < ?
                        """,
                    arguments: [now.timeIntervalSince1970, cutoff.timeIntervalSince1970])
                return files
            } catch {
                throw OutboxError(error)
            }
        }
        // After the commit: a crash here leaves orphans, which the next open deletes.
        for file in files where !file.isEmpty { unlink("\(photos)/\(file)") }
        if !files.isEmpty { try? DurableFiles.syncDirectory(photos) }
        await eraseFromJournal()
        return files.count
    }

    // MARK: Erasing

    /// Makes what the last commits deleted or overwrote leave the disk's
    /// files: copies every page of the WAL into the database file and
    /// truncates the WAL to zero bytes (`PRAGMA wal_checkpoint(TRUNCATE)`).
    ///
    /// The WAL keeps each committed version of a page (the report as
    /// queued, with the caregiver's phone and address) until it is reset,
    /// which SQLite does lazily and never by shrinking the file;
    /// `secure_delete` (set on every connection) zeroes deleted content in
    /// the pages themselves, so the pages checkpointed into the database
    /// file hold none either. The `-shm` file holds page numbers only.
    ///
    /// Another process in a read transaction (`petspot-report outbox` at
    /// that moment) can hold the truncation up past the busy timeout; it is
    /// then not done, and the next delivery or retention purge (every
    /// `purgeInterval` in the sender) does it.
    /// - Returns: whether the WAL is now empty.
    @discardableResult
    package func eraseFromJournal() async -> Bool {
        do {
            let (frames, copied) = try await database.async { db throws(DatabaseError) in
                try db.checkpointTruncate()
            }
            return frames == 0 && copied == 0
        } catch {
            return false
        }
    }
}
