import CSQLite

import FoundationEssentials

/// One SQLite connection (Debian's libsqlite3): statements, transactions,
/// the WAL checkpoint. Not thread-safe by itself: ``DatabaseQueue`` owns it
/// and runs every use on its one serial queue.
final class Database {
    private var handle: OpaquePointer?

    /// Opens (creating when missing) the database at `path`, with extended
    /// result codes and a busy timeout (how long a statement waits for
    /// another connection's lock before failing with `SQLITE_BUSY`).
    /// - Throws: ``DatabaseError``.
    init(path: String, busyTimeout: Duration) throws(DatabaseError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = DatabaseError(
                code: code, message: handle.flatMap { sqlite3_errmsg($0) }.map(String.init(cString:)))
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
        let milliseconds =
            busyTimeout.components.seconds * 1000 + busyTimeout.components.attoseconds / 1_000_000_000_000_000
        sqlite3_busy_timeout(handle, Int32(clamping: milliseconds))
    }

    deinit { close() }

    /// Closes the connection (statements are finalised as they are used, so none is left open).
    func close() {
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    private func connection() throws(DatabaseError) -> OpaquePointer {
        guard let handle else { throw DatabaseError(code: SQLITE_MISUSE, message: "the database is closed") }
        return handle
    }

    /// Runs every statement of `sql` (no arguments): the schema, pragmas.
    func execute(script sql: String) throws(DatabaseError) {
        let db = try connection()
        let code = sqlite3_exec(db, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, db) }
    }

    /// Runs one statement with `arguments` bound to its `?` in order.
    func execute(sql: String, arguments: [any DatabaseValueConvertible] = []) throws(DatabaseError) {
        _ = try rows(sql: sql, arguments: arguments, limit: 0)
    }

    /// All rows of one statement.
    func fetchAll(sql: String, arguments: [any DatabaseValueConvertible] = []) throws(DatabaseError) -> [Row] {
        try rows(sql: sql, arguments: arguments, limit: .max)
    }

    /// The first row of one statement, or `nil` when it gives none.
    func fetchOne(sql: String, arguments: [any DatabaseValueConvertible] = []) throws(DatabaseError) -> Row? {
        try rows(sql: sql, arguments: arguments, limit: 1).first
    }

    /// The first column of every row, skipping `NULL`s.
    func fetchColumn<Value: DatabaseValueDecodable>(
        _ type: Value.Type = Value.self, sql: String, arguments: [any DatabaseValueConvertible] = []
    ) throws(DatabaseError) -> [Value] {
        try rows(sql: sql, arguments: arguments, limit: .max).compactMap { $0.values.first.flatMap(Value.init) }
    }

    /// The first column of the first row, or `nil` when there is no row or it holds `NULL`.
    func fetchValue<Value: DatabaseValueDecodable>(
        _ type: Value.Type = Value.self, sql: String, arguments: [any DatabaseValueConvertible] = []
    ) throws(DatabaseError) -> Value? {
        try rows(sql: sql, arguments: arguments, limit: 1).first?.values.first.flatMap(Value.init)
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changesCount: Int {
        handle.map { Int(sqlite3_changes($0)) } ?? 0
    }

    /// Runs `body` inside `BEGIN IMMEDIATE` (the write lock taken at once)
    /// and commits; rolls back when `body` throws or the commit fails.
    func inImmediateTransaction<T, Failure: Error>(
        _ body: () throws(Failure) -> T
    ) throws(TransactionFailure<Failure>) -> T {
        do {
            try execute(script: "BEGIN IMMEDIATE TRANSACTION")
        } catch {
            throw .database(error)
        }
        let result: T
        do {
            result = try body()
        } catch {
            rollback()
            throw .body(error)
        }
        do {
            try execute(script: "COMMIT TRANSACTION")
        } catch {
            rollback()
            throw .database(error)
        }
        return result
    }

    private func rollback() {
        guard let handle, sqlite3_get_autocommit(handle) == 0 else { return }
        sqlite3_exec(handle, "ROLLBACK TRANSACTION", nil, nil, nil)
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)`: copies every WAL frame into the
    /// database file and truncates the WAL to zero bytes.
    /// - Returns: the frames left in the WAL and the frames copied, as
    ///   `sqlite3_wal_checkpoint_v2` gives them.
    /// - Throws: ``DatabaseError`` (`SQLITE_BUSY` when a reader held it up past the busy timeout).
    func checkpointTruncate() throws(DatabaseError) -> (walFrameCount: Int, checkpointedFrameCount: Int) {
        let db = try connection()
        var log: Int32 = 0
        var copied: Int32 = 0
        let code = sqlite3_wal_checkpoint_v2(db, nil, SQLITE_CHECKPOINT_TRUNCATE, &log, &copied)
        guard code == SQLITE_OK else { throw error(code, db) }
        return (Int(log), Int(copied))
    }

    // MARK: Statements

    private func rows(
        sql: String, arguments: [any DatabaseValueConvertible], limit: Int
    ) throws(DatabaseError) -> [Row] {
        let db = try connection()
        var statement: OpaquePointer?
        var code = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        guard code == SQLITE_OK, let statement else { throw error(code, db, sql) }
        defer { sqlite3_finalize(statement) }
        let parameters = Int(sqlite3_bind_parameter_count(statement))
        guard parameters == arguments.count else {
            throw DatabaseError(
                code: SQLITE_MISUSE, message: "\(arguments.count) arguments for \(parameters) parameters", sql: sql)
        }
        for (offset, argument) in arguments.enumerated() {
            let index = Int32(offset + 1)
            switch argument.databaseValue {
            case .null: code = sqlite3_bind_null(statement, index)
            case .integer(let value): code = sqlite3_bind_int64(statement, index, value)
            case .real(let value): code = sqlite3_bind_double(statement, index, value)
            case .text(let value): code = sqlite3_bind_text(statement, index, value, -1, petspot_sqlite_transient())
            case .blob(let value):
                code = value.withUnsafeBytes { bytes in
                    // A zero-length blob is bound as one (a nil pointer would bind NULL).
                    sqlite3_bind_blob64(
                        statement, index, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1),
                        sqlite3_uint64(bytes.count),
                        petspot_sqlite_transient())
                }
            }
            guard code == SQLITE_OK else { throw error(code, db, sql) }
        }
        let columns = (0..<sqlite3_column_count(statement)).map { String(cString: sqlite3_column_name(statement, $0)) }
        var rows: [Row] = []
        while true {
            code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw error(code, db, sql) }
            if rows.count < limit {
                rows.append(Row(columns: columns, values: columns.indices.map { value(statement, Int32($0)) }))
            }
            // A query stops at its limit; a statement run for its effect (limit 0) runs to the end.
            if limit > 0, rows.count == limit { break }
        }
        return rows
    }

    private func value(_ statement: OpaquePointer, _ column: Int32) -> DatabaseValue {
        switch sqlite3_column_type(statement, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(statement, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(statement, column))
        case SQLITE_TEXT:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard let text = sqlite3_column_text(statement, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(statement, column))
            guard count > 0, let bytes = sqlite3_column_blob(statement, column) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        default: return .null
        }
    }

    private func error(_ code: Int32, _ db: OpaquePointer, _ sql: String? = nil) -> DatabaseError {
        DatabaseError(code: code, message: String(cString: sqlite3_errmsg(db)), sql: sql)
    }
}

/// Why a transaction failed: its body threw, or SQLite (begin, commit).
enum TransactionFailure<Body: Error>: Error {
    case body(Body)
    case database(DatabaseError)
}
