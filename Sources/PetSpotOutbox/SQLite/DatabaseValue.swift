import FoundationEssentials

/// A value as SQLite stores it.
enum DatabaseValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

/// A Swift value bound to a statement's `?`.
protocol DatabaseValueConvertible: Sendable {
    var databaseValue: DatabaseValue { get }
}

/// A Swift value read from a column; `nil` when the stored value is not one
/// (`NULL`, or another kind that SQLite would not convert without loss).
protocol DatabaseValueDecodable {
    init?(_ value: DatabaseValue)
}

extension Int64: DatabaseValueConvertible, DatabaseValueDecodable {
    var databaseValue: DatabaseValue { .integer(self) }
    init?(_ value: DatabaseValue) {
        switch value {
        case .integer(let integer): self = integer
        case .real(let real): self.init(exactly: real)
        default: return nil
        }
    }
}

extension Int: DatabaseValueConvertible, DatabaseValueDecodable {
    var databaseValue: DatabaseValue { .integer(Int64(self)) }
    init?(_ value: DatabaseValue) {
        guard let integer = Int64(value) else { return nil }
        self.init(exactly: integer)
    }
}

extension Bool: DatabaseValueDecodable {
    init?(_ value: DatabaseValue) {
        guard let integer = Int64(value) else { return nil }
        self = integer != 0
    }
}

extension Double: DatabaseValueConvertible, DatabaseValueDecodable {
    var databaseValue: DatabaseValue { .real(self) }
    init?(_ value: DatabaseValue) {
        switch value {
        case .real(let real): self = real
        case .integer(let integer): self.init(integer)
        default: return nil
        }
    }
}

extension String: DatabaseValueConvertible, DatabaseValueDecodable {
    var databaseValue: DatabaseValue { .text(self) }
    init?(_ value: DatabaseValue) {
        guard case .text(let text) = value else { return nil }
        self = text
    }
}

extension Data: DatabaseValueConvertible, DatabaseValueDecodable {
    var databaseValue: DatabaseValue { .blob(self) }
    init?(_ value: DatabaseValue) {
        switch value {
        case .blob(let blob): self = blob
        case .text(let text): self.init(text.utf8)
        default: return nil
        }
    }
}

extension Optional: DatabaseValueConvertible where Wrapped: DatabaseValueConvertible {
    var databaseValue: DatabaseValue { self?.databaseValue ?? .null }
}

/// One result row: values by column name.
struct Row: Sendable {
    let columns: [String]
    let values: [DatabaseValue]

    /// The value of `column` (`.null` when the row has no such column).
    func value(_ column: String) -> DatabaseValue {
        columns.firstIndex(of: column).map { values[$0] } ?? .null
    }

    /// The value of `column`, or `nil` for `NULL`.
    subscript<Value: DatabaseValueDecodable>(_ column: String) -> Value? {
        Value(value(column))
    }

    /// The value of `column`, which the schema makes `NOT NULL`.
    /// - Precondition: the row has the column and its value is a `Value`.
    subscript<Value: DatabaseValueDecodable>(_ column: String) -> Value {
        guard let decoded = Value(value(column)) else {
            preconditionFailure("column \(column) holds \(value(column)), not a \(Value.self)")
        }
        return decoded
    }
}

/// An SQLite failure: its result code (primary and extended) and message.
struct DatabaseError: Error, Sendable, CustomStringConvertible {
    /// The primary result code (`SQLITE_FULL`, `SQLITE_CORRUPT`, …).
    var resultCode: Int32
    /// The extended result code (`SQLITE_IOERR_WRITE`, …).
    var extendedResultCode: Int32
    var message: String?
    /// The statement, when one failed.
    var sql: String?

    init(code: Int32, message: String?, sql: String? = nil) {
        resultCode = code & 0xff
        extendedResultCode = code
        self.message = message
        self.sql = sql
    }

    var description: String {
        "SQLite error \(extendedResultCode): \(message ?? "unknown")" + (sql.map { " - while executing `\($0)`" } ?? "")
    }
}
