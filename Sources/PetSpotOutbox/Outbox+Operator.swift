import Glibc
import FoundationEssentials

/// What the operator sees and does: `petspot-report outbox`, the kiosk's status page.
extension Outbox {
    /// Reports, oldest first, optionally only those in `states`.
    public func entries(
        states: Set<OutboxState> = Set(OutboxState.allCases), limit: Int = 1000
    ) async throws(OutboxError) -> [OutboxEntry] {
        let names = states.map(\.rawValue)
        return try await read { db in
            try db.fetchAll(
                sql: """
                    SELECT * FROM report WHERE state IN (\(names.map { _ in "?" }.joined(separator: ", ")))
                    ORDER BY createdAt, seq LIMIT ?
                    """,
                arguments: names.map { $0 as any DatabaseValueConvertible } + [limit]
            ).map(Self.entry)
        }
    }

    /// One report by id or unique id prefix (at least 4 characters).
    public func entry(_ idOrPrefix: String) async throws(OutboxError) -> OutboxEntry {
        let id = try await resolve(idOrPrefix)
        let entry = try await read { db in
            try db.fetchOne(sql: "SELECT * FROM report WHERE id = ?", arguments: [id]).map(Self.entry)
        }
        guard let entry else { throw .notFound(idOrPrefix) }
        return entry
    }

    /// Counts and times, no personal data.
    public func summary() async throws(OutboxError) -> OutboxSummary {
        var summary = try await read { db in
            var summary = OutboxSummary()
            for row in try db.fetchAll(sql: "SELECT state, COUNT(*) AS n FROM report GROUP BY state") {
                let count: Int = row["n"]
                switch OutboxState(rawValue: row["state"]) {
                case .pending: summary.pending = count
                case .delivering: summary.delivering = count
                case .delivered: summary.delivered = count
                case .rejected: summary.rejected = count
                case nil: break
                }
            }
            func date(_ sql: String) throws -> Date? {
                try db.fetchValue(Double.self, sql: sql).map(Date.init(timeIntervalSince1970:))
            }
            summary.purged =
                try db.fetchValue(Int.self, sql: "SELECT COUNT(*) FROM report WHERE purgedAt IS NOT NULL") ?? 0
            summary.oldestUndeliveredAt = try date(
                "SELECT MIN(createdAt) FROM report WHERE state IN ('pending', 'delivering')")
            summary.nextAttemptAt = try date("SELECT MIN(nextAttemptAt) FROM report WHERE state = 'pending'")
            summary.lastDeliveredAt = try date("SELECT MAX(deliveredAt) FROM report")
            if let row = try db.fetchOne(
                sql: """
                    SELECT lastAttemptAt, lastStatus FROM report
                    WHERE lastError IS NOT NULL AND state IN ('pending', 'rejected')
                    ORDER BY lastAttemptAt DESC LIMIT 1
                    """)
            {
                summary.lastFailureAt = (row["lastAttemptAt"] as Double?).map(Date.init(timeIntervalSince1970:))
                summary.lastFailureStatus = row["lastStatus"]
            }
            return summary
        }
        summary.corruptDatabases = corruptDatabases()
        return summary
    }

    /// Makes a rejected (or waiting) report due at once.
    /// - Throws: ``OutboxError/notAllowed(_:)`` for a report delivered or being delivered.
    @discardableResult
    public func retry(_ idOrPrefix: String, now: Date = Date()) async throws(OutboxError) -> OutboxEntry {
        let id = try await resolve(idOrPrefix)
        try await write { db throws(OutboxError) in
            do {
                let state = try db.fetchValue(
                    String.self, sql: "SELECT state FROM report WHERE id = ?", arguments: [id])
                switch state.flatMap(OutboxState.init(rawValue:)) {
                case .pending?, .rejected?:
                    try db.execute(
                        sql: "UPDATE report SET state = 'pending', nextAttemptAt = ?, rejectedAt = NULL WHERE id = ?",
                        arguments: [now.timeIntervalSince1970, id])
                case .delivered?: throw OutboxError.notAllowed("report \(id) is already delivered")
                case .delivering?: throw OutboxError.notAllowed("report \(id) is being delivered right now")
                case nil: throw OutboxError.notFound(id)
                }
            } catch {
                throw OutboxError(error)
            }
        }
        enqueueObservers.notify()
        return try await entry(id)
    }

    /// Deletes a report and its photo from the station for good (its row
    /// zeroed by `secure_delete`, the WAL emptied: ``eraseFromJournal()``).
    /// - Throws: ``OutboxError/notAllowed(_:)`` for a report being delivered right now.
    public func discard(_ idOrPrefix: String) async throws(OutboxError) {
        let id = try await resolve(idOrPrefix)
        let photos = photosDirectory
        let file = try await write { db throws(OutboxError) in
            do {
                guard
                    let row = try db.fetchOne(sql: "SELECT state, photoFile FROM report WHERE id = ?", arguments: [id])
                else { throw OutboxError.notFound(id) }
                if (row["state"] as String) == OutboxState.delivering.rawValue {
                    throw OutboxError.notAllowed("report \(id) is being delivered right now; try again in a moment")
                }
                try db.execute(sql: "DELETE FROM report WHERE id = ?", arguments: [id])
                return row["photoFile"] as String?
            } catch {
                throw OutboxError(error)
            }
        }
        // The row is gone first: a crash here leaves an orphan photo, deleted at the next open.
        if let file {
            unlink("\(photos)/\(file)")
            try? DurableFiles.syncDirectory(photos)
        }
        // The report's personal data out of the WAL too.
        await eraseFromJournal()
    }

    /// The full lowercase id for `idOrPrefix`.
    func resolve(_ idOrPrefix: String) async throws(OutboxError) -> String {
        let text = idOrPrefix.lowercased()
        guard text.count >= 4, text.allSatisfy({ $0.isHexDigit || $0 == "-" }) else {
            throw .notFound(idOrPrefix)
        }
        let matches = try await read { db in
            try db.fetchColumn(
                String.self, sql: "SELECT id FROM report WHERE substr(id, 1, ?) = ? LIMIT 2",
                arguments: [text.count, text])
        }
        guard let first = matches.first else { throw .notFound(idOrPrefix) }
        guard matches.count == 1 else { throw .ambiguous(idOrPrefix) }
        return first
    }

    static func entry(_ row: Row) -> OutboxEntry {
        func date(_ column: String) -> Date? { (row[column] as Double?).map(Date.init(timeIntervalSince1970:)) }
        return OutboxEntry(
            id: row["id"], state: OutboxState(rawValue: row["state"]) ?? .pending,
            createdAt: date("createdAt") ?? Date(timeIntervalSince1970: 0),
            enqueuedAt: date("enqueuedAt") ?? Date(timeIntervalSince1970: 0), attempts: row["attempts"],
            nextAttemptAt: date("nextAttemptAt"), lastAttemptAt: date("lastAttemptAt"), lastStatus: row["lastStatus"],
            lastError: row["lastError"], deliveredAt: date("deliveredAt"), rejectedAt: date("rejectedAt"),
            backendReference: row["backendReference"], purgedAt: date("purgedAt"), photoBytes: row["photoBytes"])
    }
}

/// What the database holds for one report, for tests and diagnostics.
package struct StoredReport: Sendable, Hashable {
    package var announcement: Data?
    package var stationOnly: Data?
    package var photoFile: String?
}

extension Outbox {
    /// The stored payloads of report `id` (lowercase), or `nil`.
    package func stored(_ id: String) async throws(OutboxError) -> StoredReport? {
        try await read { db in
            try db.fetchOne(
                sql: "SELECT announcement, stationOnly, photoFile FROM report WHERE id = ?", arguments: [id]
            ).map {
                StoredReport(
                    announcement: $0["announcement"], stationOnly: $0["stationOnly"], photoFile: $0["photoFile"])
            }
        }
    }
}
