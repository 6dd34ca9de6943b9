internal import CSQLite

/// A prepared statement owned by one ``SQLiteDatabase``; used only on the thread holding its database.
final class SQLiteStatement {
    private var handle: OpaquePointer?
    private unowned let database: SQLiteDatabase

    init(_ handle: OpaquePointer, database: SQLiteDatabase) {
        self.handle = handle
        self.database = database
    }

    func finalize() {
        sqlite3_finalize(handle)
        handle = nil
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `values` to parameters 1, 2, … in order.
    @discardableResult
    func bind(_ values: SQLiteValue...) throws(CacheError) -> SQLiteStatement {
        for (offset, value) in values.enumerated() {
            let position = Int32(offset + 1)
            let code: Int32
            switch value {
            case .null: code = sqlite3_bind_null(handle, position)
            case .integer(let number): code = sqlite3_bind_int64(handle, position, number)
            case .real(let number): code = sqlite3_bind_double(handle, position, number)
            case .text(let text): code = sqlite3_bind_text(handle, position, text, -1, sluice_sqlite_transient())
            case .blob(let bytes):
                code = bytes.withUnsafeBytes { raw in
                    // A zero-length blob needs a real pointer: NULL would bind SQL NULL.
                    sqlite3_bind_blob(
                        handle, position, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count),
                        sluice_sqlite_transient())
                }
            }
            guard code == SQLITE_OK else { throw database.error(code) }
        }
        return self
    }

    /// Advances to the next row; false when the statement is done.
    func step() throws(CacheError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw database.error(code)
        }
    }

    /// Runs a statement that returns no rows.
    func run() throws(CacheError) {
        while try step() {}
    }

    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func blob(_ column: Int32) -> [UInt8]? {
        guard !isNull(column) else { return nil }
        let count = Int(sqlite3_column_bytes(handle, column))
        guard let pointer = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    func text(_ column: Int32) -> String? {
        guard let pointer = sqlite3_column_text(handle, column) else { return nil }
        return String(cString: pointer)
    }
}

/// A value bound to a statement parameter.
enum SQLiteValue {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    static func optional(_ text: String?) -> SQLiteValue { text.map(SQLiteValue.text) ?? .null }
}
