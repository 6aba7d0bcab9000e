import CSQLite
import Foundation

/// The one SQLite connection type: opens in init, closes in deinit, and turns
/// every status code into an `ArchiveError` naming the file and SQLite's message.
/// Not thread-safe: a connection stays on the thread that made it.
final class SQLiteDatabase {
    let path: String
    private(set) var handle: OpaquePointer?

    init(path: String, create: Bool) throws {
        self.path = path
        var h: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        let rc = sqlite3_open_v2(path, &h, flags, nil)
        guard rc == SQLITE_OK, let h else {
            let msg = h.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            sqlite3_close_v2(h)
            throw ArchiveError(file: path, format: "mbtiles", problem: "cannot open: \(msg)")
        }
        handle = h
    }

    deinit { sqlite3_close_v2(handle) }

    func error(_ what: String) -> ArchiveError {
        ArchiveError(file: path, format: "mbtiles", problem: "\(what): \(String(cString: sqlite3_errmsg(handle)))")
    }

    /// Runs statements that return no rows.
    func exec(_ sql: String) throws {
        var msg: UnsafeMutablePointer<CChar>?
        if sqlite3_exec(handle, sql, nil, nil, &msg) != SQLITE_OK {
            let text = msg.map { String(cString: $0) } ?? "unknown error"
            sqlite3_free(msg)
            throw ArchiveError(file: path, format: "mbtiles", problem: "\(sql.prefix(60)): \(text)")
        }
    }

    func prepare(_ sql: String) throws -> SQLiteStatement { try SQLiteStatement(self, sql) }

    /// Rows changed by everything this connection ran so far.
    var totalChanges: Int { Int(sqlite3_total_changes(handle)) }

    /// Closes the connection; statements still alive are finalized when they
    /// go (sqlite3_close_v2 waits for them).
    func close() throws {
        guard let h = handle else { return }
        guard sqlite3_close_v2(h) == SQLITE_OK else { throw error("close") }
        handle = nil
    }
}

/// A prepared statement, finalized in deinit.
final class SQLiteStatement {
    private let db: SQLiteDatabase
    private var stmt: OpaquePointer?
    private let sql: String

    init(_ db: SQLiteDatabase, _ sql: String) throws {
        self.db = db; self.sql = sql
        guard sqlite3_prepare_v2(db.handle, sql, -1, &stmt, nil) == SQLITE_OK else { throw db.error("prepare \(sql.prefix(60))") }
    }

    deinit { sqlite3_finalize(stmt) }

    enum Value { case int(Int), text(String), blob(Data), null }

    /// SQLite keeps no copy of bound text or blobs unless told so.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    func bind(_ values: [Value]) throws {
        sqlite3_reset(stmt)
        sqlite3_clear_bindings(stmt)
        for (i, v) in values.enumerated() {
            let k = Int32(i + 1)
            let rc: Int32
            switch v {
            case .int(let n): rc = sqlite3_bind_int64(stmt, k, sqlite3_int64(n))
            case .text(let s): rc = sqlite3_bind_text(stmt, k, s, -1, SQLiteStatement.transient)
            case .blob(let d): rc = d.withUnsafeBytes { sqlite3_bind_blob(stmt, k, $0.baseAddress, Int32($0.count), SQLiteStatement.transient) }
            case .null: rc = sqlite3_bind_null(stmt, k)
            }
            guard rc == SQLITE_OK else { throw db.error("bind \(k) of \(sql.prefix(60))") }
        }
    }

    /// Runs a statement that returns no rows.
    func run(_ values: [Value] = []) throws {
        try bind(values)
        guard sqlite3_step(stmt) == SQLITE_DONE else { throw db.error("run \(sql.prefix(60))") }
    }

    /// Runs a query, handing each row to `row`.
    func query(_ values: [Value] = [], _ row: (SQLiteRow) throws -> Void) throws {
        try bind(values)
        while true {
            let rc = sqlite3_step(stmt)
            if rc == SQLITE_DONE { return }
            guard rc == SQLITE_ROW else { throw db.error("query \(sql.prefix(60))") }
            try row(SQLiteRow(stmt: stmt))
        }
    }
}

/// The current row of a query; valid only inside the `query` callback.
struct SQLiteRow {
    fileprivate let stmt: OpaquePointer?
    func int(_ i: Int32) -> Int { Int(sqlite3_column_int64(stmt, i)) }
    func text(_ i: Int32) -> String? { sqlite3_column_text(stmt, i).map { String(cString: $0) } }
    func blob(_ i: Int32) -> Data {
        let n = Int(sqlite3_column_bytes(stmt, i))
        guard n > 0, let p = sqlite3_column_blob(stmt, i) else { return Data() }
        return Data(bytes: p, count: n)
    }
}
