import Foundation
import SluiceCore
import SluiceCrypto

/// The SQLite index: the authoritative list of assets and of present (synced) chunks, with an ``IndexMemo`` of
/// the rows of recently used assets in front of it (a cache hit reads only the memo).
///
/// Not thread-safe: it lives inside ``ChunkStore``'s mutex. Queries that stop at their first row reset
/// their statement at once: a statement left on a row holds a read transaction, which keeps checkpoints
/// from completing and lets the WAL grow without bound (sqlite.org/wal.html, "Avoiding Excessively Large
/// WAL Files").
struct ChunkIndex {
    /// Bumped when the schema changes incompatibly; an index with another version is rebuilt.
    static let schemaVersion: Int64 = 2

    let database: SQLiteDatabase
    let memo = IndexMemo()
    /// Seals the identifying fields of asset rows (asset ID, content type, validators) in an encrypted store.
    let keyring: CacheKeyring?
    /// Whether the file held an index of another schema version, whose tables were dropped.
    let replacedSchema: Bool

    /// Opens the index at `path`, applying pragmas and creating the schema. Throws when the file is not a
    /// usable database (the caller moves it aside).
    init(path: String, walLimit: Int64, keyring: CacheKeyring?) throws(CacheError) {
        self.keyring = keyring
        // Created private before SQLite opens it: its WAL and shared-memory files take the database's mode.
        try FileIO.createPrivateFile(path)
        database = try SQLiteDatabase(path: path)
        do {
            // Reading the schema version parses the header: a garbage file fails here with SQLITE_NOTADB.
            let version = try database.statement("PRAGMA user_version")
            let existing = try version.step() ? version.int64(0) : 0
            version.reset()
            // WAL with synchronous=NORMAL: commits survive a process crash and need no fsync each
            // (sqlite.org/pragma.html#pragma_synchronous); chunk data is synced by the committer before its
            // rows are inserted, so an index row never refers to unsynced bytes.
            try database.execute(
                """
                PRAGMA journal_mode=WAL;
                PRAGMA synchronous=NORMAL;
                PRAGMA journal_size_limit=\(walLimit);
                PRAGMA wal_autocheckpoint=\(max(16, walLimit / 4096 / 2));
                PRAGMA foreign_keys=OFF;
                """)
            replacedSchema = existing != 0 && existing != Self.schemaVersion
            if replacedSchema {
                try database.execute(
                    """
                    DROP TABLE IF EXISTS chunks; DROP TABLE IF EXISTS assets; DROP TABLE IF EXISTS meta;
                    DROP TABLE IF EXISTS write_marks;
                    """)
            }
            try database.execute(
                """
                CREATE TABLE IF NOT EXISTS meta(name TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS assets(
                    key TEXT PRIMARY KEY, asset_id TEXT NOT NULL, length INTEGER NOT NULL, content_type TEXT,
                    etag TEXT, last_modified REAL, validator TEXT, fetched_at REAL NOT NULL,
                    last_access REAL NOT NULL, pinned INTEGER NOT NULL DEFAULT 0,
                    allocated INTEGER NOT NULL DEFAULT 0, key_id INTEGER, sealed BLOB) WITHOUT ROWID;
                CREATE INDEX IF NOT EXISTS assets_lru ON assets(pinned, last_access);
                CREATE TABLE IF NOT EXISTS chunks(
                    asset_key TEXT NOT NULL, idx INTEGER NOT NULL, size INTEGER NOT NULL, crc32 INTEGER NOT NULL,
                    written_at REAL NOT NULL, key_id INTEGER, cipher INTEGER, write_id INTEGER,
                    PRIMARY KEY(asset_key, idx)) WITHOUT ROWID;
                CREATE TABLE IF NOT EXISTS write_marks(key TEXT PRIMARY KEY) WITHOUT ROWID;
                PRAGMA user_version=\(Self.schemaVersion);
                """)
        } catch {
            database.close()
            throw error
        }
    }

    func close() { database.close() }

    // MARK: meta

    func meta(_ name: String) throws(CacheError) -> String? {
        let statement = try database.statement("SELECT value FROM meta WHERE name = ?").bind(.text(name))
        defer { statement.reset() }
        return try statement.step() ? statement.text(0) : nil
    }

    func setMeta(_ name: String, _ value: String) throws(CacheError) {
        try database.statement("INSERT OR REPLACE INTO meta(name, value) VALUES (?, ?)")
            .bind(.text(name), .text(value)).run()
    }

    // MARK: assets

    private static let assetColumns =
        "key, asset_id, length, content_type, etag, last_modified, validator, fetched_at, last_access, pinned, allocated, "
        + "sealed"

    func asset(_ key: StorageKey) throws(CacheError) -> AssetRow? {
        if let remembered = memo.row(key) { return remembered }
        let statement = try database.statement("SELECT \(Self.assetColumns) FROM assets WHERE key = ?")
            .bind(.text(key.text))
        defer { statement.reset() }
        guard try statement.step(), let row = assetRow(statement) else { return nil }
        memo.remember(row)
        return row
    }

    /// `read` applied to the row of `key` (remembered, or read from SQLite and remembered), without copying a
    /// remembered row: for lookups on every cache hit that need a few fields.
    func asset<T>(_ key: StorageKey, _ read: (borrowing AssetRow) -> T) throws(CacheError) -> T? {
        if let value = memo.withRow(key, read) { return value }
        return try asset(key).map(read)
    }

    /// Assets ordered by key after `cursor`, at most `limit`.
    func assets(after cursor: StorageKey?, limit: Int) throws(CacheError) -> [AssetRow] {
        let statement = try database.statement(
            "SELECT \(Self.assetColumns) FROM assets WHERE key > ? ORDER BY key LIMIT ?"
        )
        .bind(.text(cursor?.text ?? ""), .integer(Int64(limit)))
        var rows: [AssetRow] = []
        while try statement.step() { assetRow(statement).map { rows.append($0) } }
        return rows
    }

    func insertAsset(_ row: AssetRow) throws(CacheError) {
        let statement = try database.statement(
            """
            INSERT OR REPLACE INTO assets(\(Self.assetColumns), key_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        if let keyring {
            // Only the length, times, pin and allocation stay readable: what eviction and the cap need.
            let sealed = try AssetRowSealing.seal(row, keyring)
            try statement.bind(
                .text(row.key.text), .text(""), .integer(row.info.length), .null, .null, .null, .null,
                .real(row.fetchedAt.timeIntervalSince1970), .real(row.lastAccess.timeIntervalSince1970),
                .integer(row.pinned ? 1 : 0), .integer(row.allocated), .blob(sealed),
                .integer(Int64(bitPattern: keyring.current.id))
            ).run()
        } else {
            try statement.bind(
                .text(row.key.text), .text(row.assetID), .integer(row.info.length), .optional(row.info.contentType),
                .optional(row.info.etag), row.info.lastModified.map { .real($0.timeIntervalSince1970) } ?? .null,
                .optional(row.validator), .real(row.fetchedAt.timeIntervalSince1970),
                .real(row.lastAccess.timeIntervalSince1970), .integer(row.pinned ? 1 : 0), .integer(row.allocated),
                .null, .null
            ).run()
        }
        memo.remember(row)
    }

    func deleteAsset(_ key: StorageKey) throws(CacheError) {
        memo.forget(key)
        try database.statement("DELETE FROM chunks WHERE asset_key = ?").bind(.text(key.text)).run()
        try database.statement("DELETE FROM assets WHERE key = ?").bind(.text(key.text)).run()
    }

    func setLastAccess(_ key: StorageKey, _ date: Date) throws(CacheError) {
        try database.statement("UPDATE assets SET last_access = max(last_access, ?) WHERE key = ?")
            .bind(.real(date.timeIntervalSince1970), .text(key.text)).run()
        memo.updateRow(key) { $0.lastAccess = max($0.lastAccess, date) }
    }

    /// Sets the pin; false when the asset is unknown.
    func setPinned(_ key: StorageKey, _ pinned: Bool) throws(CacheError) -> Bool {
        try database.statement("UPDATE assets SET pinned = ? WHERE key = ?")
            .bind(.integer(pinned ? 1 : 0), .text(key.text)).run()
        memo.updateRow(key) { $0.pinned = pinned }
        return database.changes > 0
    }

    func setAllocated(_ key: StorageKey, _ bytes: Int64) throws(CacheError) {
        try database.statement("UPDATE assets SET allocated = ? WHERE key = ?").bind(.integer(bytes), .text(key.text))
            .run()
        memo.updateRow(key) { $0.allocated = bytes }
    }

    func count() throws(CacheError) -> Int {
        let statement = try database.statement("SELECT count(*) FROM assets")
        defer { statement.reset() }
        return try statement.step() ? Int(statement.int64(0)) : 0
    }

    func chunkCount() throws(CacheError) -> Int {
        let statement = try database.statement("SELECT count(*) FROM chunks")
        defer { statement.reset() }
        return try statement.step() ? Int(statement.int64(0)) : 0
    }

    func totalAllocated() throws(CacheError) -> Int64 {
        let statement = try database.statement("SELECT coalesce(sum(allocated), 0) FROM assets")
        defer { statement.reset() }
        return try statement.step() ? statement.int64(0) : 0
    }

    /// Unpinned assets holding disk blocks, least recently used first.
    func leastRecentlyUsed(limit: Int, after cursor: (Double, StorageKey)?) throws(CacheError) -> [AssetRow] {
        let statement = try database.statement(
            """
            SELECT \(Self.assetColumns) FROM assets WHERE pinned = 0 AND allocated > 0
            AND (last_access, key) > (?, ?) ORDER BY last_access, key LIMIT ?
            """
        ).bind(.real(cursor?.0 ?? -Double.infinity), .text(cursor?.1.text ?? ""), .integer(Int64(limit)))
        var rows: [AssetRow] = []
        while try statement.step() { assetRow(statement).map { rows.append($0) } }
        return rows
    }

    /// Unpinned assets last accessed before `date`.
    func idle(before date: Date, limit: Int) throws(CacheError) -> [AssetRow] {
        let statement = try database.statement(
            "SELECT \(Self.assetColumns) FROM assets WHERE pinned = 0 AND last_access < ? ORDER BY last_access LIMIT ?"
        ).bind(.real(date.timeIntervalSince1970), .integer(Int64(limit)))
        var rows: [AssetRow] = []
        while try statement.step() { assetRow(statement).map { rows.append($0) } }
        return rows
    }

    // MARK: chunks

    /// Present chunks of an asset with index in `indices`, ascending. For a remembered asset, all its chunk rows
    /// are read once and answered from the memo after that.
    func chunks(_ key: StorageKey, in indices: ClosedRange<Int64> = 0...Int64.max) throws(CacheError) -> [ChunkRow] {
        switch memo.chunks(key) {
        case .loaded(let rows):
            let span = indices.upperBound &- indices.lowerBound
            if span >= 0 && span < Int64(rows.count) { return indices.compactMap { rows[$0] } }
            return rows.values.filter { indices.contains($0.index) }.sorted { $0.index < $1.index }
        case .notLoaded:
            let rows = try selectChunks(key, in: 0...Int64.max)
            memo.remember(rows, of: key)
            return rows.filter { indices.contains($0.index) }
        case .tooMany, nil:
            return try selectChunks(key, in: indices)
        }
    }

    /// Whether every chunk in `indices` is present or, by `pending`, written and not yet committed.
    func allPresent(_ key: StorageKey, in indices: ClosedRange<Int64>, orPending pending: (Int64) -> Bool)
        throws(CacheError) -> Bool
    {
        if case .loaded(let rows) = memo.chunks(key) {
            return indices.allSatisfy { rows[$0] != nil || pending($0) }
        }
        let present = Set(try chunks(key, in: indices).map(\.index))
        return indices.allSatisfy { present.contains($0) || pending($0) }
    }

    private func selectChunks(_ key: StorageKey, in indices: ClosedRange<Int64>) throws(CacheError) -> [ChunkRow] {
        let statement = try database.statement(
            """
            SELECT idx, size, crc32, key_id, cipher, write_id FROM chunks WHERE asset_key = ? AND idx BETWEEN ? AND ?
            ORDER BY idx
            """
        ).bind(.text(key.text), .integer(indices.lowerBound), .integer(indices.upperBound))
        var rows: [ChunkRow] = []
        while try statement.step() { rows.append(Self.chunkRow(statement, from: 0)) }
        return rows
    }

    func insertChunk(_ key: StorageKey, _ chunk: ChunkRow, writtenAt: Date) throws(CacheError) {
        try database.statement(
            """
            INSERT OR REPLACE INTO chunks(asset_key, idx, size, crc32, written_at, key_id, cipher, write_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        ).bind(
            .text(key.text), .integer(chunk.index), .integer(chunk.size), .integer(Int64(chunk.crc)),
            .real(writtenAt.timeIntervalSince1970),
            chunk.seal.map { .integer(Int64(bitPattern: $0.keyID)) } ?? .null,
            chunk.seal.map { .integer(Int64($0.cipher.rawValue)) } ?? .null,
            chunk.seal.map { .integer(Int64(bitPattern: $0.writeID)) } ?? .null
        ).run()
        memo.insert(chunk, of: key)
    }

    /// Deletes the chunks of an asset with index in `indices`; returns how many there were.
    @discardableResult
    func deleteChunks(_ key: StorageKey, in indices: ClosedRange<Int64> = 0...Int64.max) throws(CacheError) -> Int {
        // The memo follows a delete that succeeded: a loaded chunk list is complete, so dropping rows from it
        // first would, if the delete failed, leave it claiming chunks absent that the database still lists.
        try database.statement("DELETE FROM chunks WHERE asset_key = ? AND idx BETWEEN ? AND ?")
            .bind(.text(key.text), .integer(indices.lowerBound), .integer(indices.upperBound)).run()
        memo.deleteChunks(of: key, in: indices)
        return database.changes
    }

    /// Deletes the chunks, and the asset rows with their chunks, sealed under none of the keys `ids` (or not sealed);
    /// returns how many chunks and assets there were.
    func deleteSealed(notUnder ids: [UInt64]) throws(CacheError) -> (chunks: Int, assets: Int) {
        let known = ids.map { String(Int64(bitPattern: $0)) }.joined(separator: ",")
        memo.forgetAll()
        return try transaction { () throws(CacheError) in
            try database.execute(
                """
                DELETE FROM chunks WHERE asset_key IN
                    (SELECT key FROM assets WHERE key_id IS NULL OR key_id NOT IN (\(known)));
                """)
            try database.execute("DELETE FROM assets WHERE key_id IS NULL OR key_id NOT IN (\(known));")
            let assets = database.changes
            try database.execute("DELETE FROM chunks WHERE key_id IS NULL OR key_id NOT IN (\(known));")
            return (database.changes, assets)
        }
    }

    /// How many chunks and asset rows are sealed under another key than `id`.
    func countSealed(notUnder id: UInt64) throws(CacheError) -> (chunks: Int, assets: Int) {
        var counts: [Int] = []
        for table in ["chunks", "assets"] {
            let statement = try database.statement("SELECT count(*) FROM \(table) WHERE key_id != ?")
                .bind(.integer(Int64(bitPattern: id)))
            defer { statement.reset() }
            counts.append(try statement.step() ? Int(statement.int64(0)) : 0)
        }
        return (counts[0], counts[1])
    }

    /// Keys of asset rows sealed under another key than `id`, at most `limit`.
    func assetKeys(sealedNotUnder id: UInt64, limit: Int) throws(CacheError) -> [StorageKey] {
        let statement = try database.statement("SELECT key FROM assets WHERE key_id != ? ORDER BY key LIMIT ?")
            .bind(.integer(Int64(bitPattern: id)), .integer(Int64(limit)))
        var keys: [StorageKey] = []
        while try statement.step() { keys.append(StorageKey(statement.text(0) ?? "")) }
        return keys
    }

    /// Chunks sealed under another key than `id`, ordered by asset key and index after `cursor`, at most `limit`.
    func chunks(sealedNotUnder id: UInt64, after cursor: (StorageKey, Int64)?, limit: Int) throws(CacheError)
        -> [(key: StorageKey, chunk: ChunkRow)]
    {
        let statement = try database.statement(
            """
            SELECT asset_key, idx, size, crc32, key_id, cipher, write_id FROM chunks
            WHERE key_id != ? AND (asset_key, idx) > (?, ?) ORDER BY asset_key, idx LIMIT ?
            """
        ).bind(
            .integer(Int64(bitPattern: id)), .text(cursor?.0.text ?? ""), .integer(cursor?.1 ?? -1),
            .integer(Int64(limit)))
        var rows: [(key: StorageKey, chunk: ChunkRow)] = []
        while try statement.step() {
            rows.append((StorageKey(statement.text(0) ?? ""), Self.chunkRow(statement, from: 1)))
        }
        return rows
    }

    func deleteAll() throws(CacheError) {
        memo.forgetAll()
        try database.execute("DELETE FROM chunks; DELETE FROM assets; DELETE FROM write_marks;")
    }

    /// Runs `body` in one transaction; when it rolls back, the memo (which may hold rows of the rolled-back
    /// statements) is emptied.
    func transaction<T>(_ body: () throws(CacheError) -> T) throws(CacheError) -> T {
        do {
            return try database.transaction(body)
        } catch {
            memo.forgetAll()
            throw error
        }
    }

    /// The row a statement selecting ``assetColumns`` is on; nil when its sealed fields do not open (sealed under a
    /// key no longer configured, or altered).
    private func assetRow(_ statement: SQLiteStatement) -> AssetRow? {
        let row = Self.plainAssetRow(statement)
        guard let keyring else { return row }
        guard let sealed = statement.blob(11) else { return nil }
        return AssetRowSealing.open(sealed, into: row, keyring)
    }

    /// A chunk row from the columns `idx, size, crc32, key_id, cipher, write_id` starting at `first`.
    static func chunkRow(_ statement: SQLiteStatement, from first: Int32) -> ChunkRow {
        var row = ChunkRow(
            index: statement.int64(first), size: statement.int64(first + 1), crc: UInt32(statement.int64(first + 2)))
        if !statement.isNull(first + 3),
            let cipher = AEADKind(rawValue: UInt8(truncatingIfNeeded: statement.int64(first + 4)))
        {
            row.seal = ChunkSeal(
                keyID: UInt64(bitPattern: statement.int64(first + 3)), cipher: cipher,
                writeID: UInt64(bitPattern: statement.int64(first + 5)))
        }
        return row
    }

    private static func plainAssetRow(_ statement: SQLiteStatement) -> AssetRow {
        AssetRow(
            key: StorageKey(statement.text(0) ?? ""),
            assetID: statement.text(1) ?? "",
            info: ContentInfo(
                length: statement.int64(2), contentType: statement.text(3), etag: statement.text(4),
                lastModified: statement.isNull(5) ? nil : Date(timeIntervalSince1970: statement.double(5))),
            validator: statement.text(6),
            fetchedAt: Date(timeIntervalSince1970: statement.double(7)),
            lastAccess: Date(timeIntervalSince1970: statement.double(8)),
            pinned: statement.int64(9) != 0,
            allocated: statement.int64(10))
    }
}
