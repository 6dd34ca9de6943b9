internal import CSQLite

/// One SQLite connection with a cache of prepared statements.
///
/// Not thread-safe: ``ChunkStore`` keeps it inside its mutex, so exactly one thread uses it at a time.
final class SQLiteDatabase {
    private var handle: OpaquePointer?
    private var statements: [String: SQLiteStatement] = [:]

    /// Opens (creating if needed) the database file at `path`.
    init(path: String) throws(CacheError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let error = CacheError.index(code: code, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "")
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        sqlite3_extended_result_codes(handle, 1)
    }

    deinit { close() }

    /// Finalizes every statement and closes the connection; later calls fail with `.closed`.
    func close() {
        for statement in statements.values { statement.finalize() }
        statements.removeAll()
        if let handle { sqlite3_close_v2(handle) }
        handle = nil
    }

    /// Runs one or more statements that take no parameters and return no rows.
    func execute(_ sql: String) throws(CacheError) {
        guard let handle else { throw .closed }
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code) }
    }

    /// The prepared statement for `sql`, reset and with its bindings cleared, prepared once per connection.
    func statement(_ sql: String) throws(CacheError) -> SQLiteStatement {
        guard let handle else { throw .closed }
        if let cached = statements[sql] {
            cached.reset()
            return cached
        }
        var raw: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &raw, nil)
        guard code == SQLITE_OK, let raw else { throw error(code) }
        let statement = SQLiteStatement(raw, database: self)
        statements[sql] = statement
        return statement
    }

    /// Runs `body` inside `BEGIN IMMEDIATE … COMMIT`, rolling back when it throws.
    func transaction<T>(_ body: () throws(CacheError) -> T) throws(CacheError) -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Rows changed by the last statement.
    var changes: Int {
        handle.map { Int(sqlite3_changes($0)) } ?? 0
    }

    /// The typed error for a failed call, with SQLite's message (never holding user data: statements bind
    /// values, they are not interpolated).
    func error(_ code: Int32) -> CacheError {
        .index(code: code, message: handle.map { String(cString: sqlite3_errmsg($0)) } ?? "")
    }
}
