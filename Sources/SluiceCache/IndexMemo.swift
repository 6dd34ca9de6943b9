/// The rows ``ChunkIndex`` last read or wrote for recently used assets, so that a cache hit asks SQLite
/// nothing: an asset row, and once asked for, all its chunk rows.
///
/// It mirrors the database because every write goes through ``ChunkIndex``, which forgets rows here before a
/// delete, drops deleted chunk rows and records rows after a statement succeeds, and empties the memo when a
/// transaction rolls back: it may know less than the database, never more. Bounded: past ``maxAssets`` assets
/// or ``maxChunks`` chunk rows, other assets are forgotten (read from SQLite again when next needed). Not
/// thread-safe: it lives inside ``ChunkStore``'s mutex.
final class IndexMemo {
    /// What the memo knows of an asset's chunk rows.
    enum Chunks {
        case notLoaded
        /// More rows than the memo keeps for one asset: always asked from SQLite.
        case tooMany
        case loaded([Int64: ChunkRow])

        var isLoaded: Bool {
            if case .loaded = self { return true }
            return false
        }
    }

    /// A remembered row, boxed so that a lookup reads the fields it needs in place instead of copying the row
    /// (five strings to retain and release).
    private final class RememberedRow {
        var row: AssetRow
        init(_ row: AssetRow) { self.row = row }
    }

    let maxAssets: Int
    let maxChunks: Int
    // Rows and chunk rows apart, so that a lookup copies only what it asks for.
    private var rows: [StorageKey: RememberedRow] = [:]
    private var chunkRows: [StorageKey: Chunks] = [:]
    private var chunkCount = 0

    init(maxAssets: Int = 4096, maxChunks: Int = 1 << 18) {
        self.maxAssets = maxAssets
        self.maxChunks = maxChunks
    }

    /// The remembered row of `key`.
    func row(_ key: StorageKey) -> AssetRow? { rows[key]?.row }

    /// `read` applied to the remembered row of `key`, which is not copied; nil when the row is not remembered.
    func withRow<T>(_ key: StorageKey, _ read: (borrowing AssetRow) -> T) -> T? {
        guard let remembered = rows[key] else { return nil }
        return read(remembered.row)
    }

    /// What is known of the chunk rows of `key`; nil when its row is not remembered.
    func chunks(_ key: StorageKey) -> Chunks? {
        // Chunk rows are only kept for remembered rows, so a hit needs one lookup.
        if let chunks = chunkRows[key] { return chunks }
        return rows[key] != nil ? .notLoaded : nil
    }

    /// Remembers a row read from or written to the index; what is known of the asset's chunk rows stays (no
    /// statement on `assets` changes `chunks`).
    func remember(_ row: AssetRow) {
        if let remembered = rows[row.key] {
            remembered.row = row
            return
        }
        makeRoom(assets: 1, chunks: 0)
        rows[row.key] = RememberedRow(row)
    }

    /// Remembers all chunk rows of an asset whose row is remembered, or that it has too many to keep.
    func remember(_ chunks: [ChunkRow], of key: StorageKey) {
        guard rows[key] != nil else { return }
        forgetChunks(of: key)
        guard chunks.count <= maxChunks / 4 else {
            chunkRows[key] = .tooMany
            return
        }
        makeRoom(assets: 0, chunks: chunks.count, sparing: key)
        var loaded: [Int64: ChunkRow] = [:]
        loaded.reserveCapacity(chunks.count)
        for chunk in chunks { loaded[chunk.index] = chunk }
        chunkRows[key] = .loaded(loaded)
        chunkCount += chunks.count
    }

    /// Applies a change to a remembered row.
    func updateRow(_ key: StorageKey, _ change: (inout AssetRow) -> Void) {
        guard let remembered = rows[key] else { return }
        change(&remembered.row)
    }

    /// Records an inserted or replaced chunk row (when the asset's chunks are loaded).
    func insert(_ chunk: ChunkRow, of key: StorageKey) {
        guard case .loaded(var loaded) = chunkRows[key] else { return }
        chunkRows[key] = .notLoaded
        if loaded.updateValue(chunk, forKey: chunk.index) == nil { chunkCount += 1 }
        chunkRows[key] = .loaded(loaded)
    }

    /// Records deleted chunk rows (when the asset's chunks are loaded).
    func deleteChunks(of key: StorageKey, in indices: ClosedRange<Int64>) {
        guard case .loaded(var loaded) = chunkRows[key] else { return }
        chunkRows[key] = .notLoaded
        let doomed = loaded.keys.filter(indices.contains)
        for index in doomed { loaded[index] = nil }
        chunkCount -= doomed.count
        chunkRows[key] = .loaded(loaded)
    }

    /// Forgets an asset (about to be deleted, or no longer trusted).
    func forget(_ key: StorageKey) {
        forgetChunks(of: key)
        rows[key] = nil
    }

    /// Forgets everything.
    func forgetAll() {
        rows.removeAll()
        chunkRows.removeAll()
        chunkCount = 0
    }

    private func forgetChunks(of key: StorageKey) {
        if case .loaded(let loaded) = chunkRows[key] { chunkCount -= loaded.count }
        chunkRows[key] = nil
    }

    private func makeRoom(assets: Int, chunks: Int, sparing spared: StorageKey? = nil) {
        while rows.count + assets > maxAssets, let victim = rows.keys.first(where: { $0 != spared }) {
            forget(victim)
        }
        while chunkCount + chunks > maxChunks,
            let victim = chunkRows.first(where: { $0.key != spared && $0.value.isLoaded })?.key
        {
            forgetChunks(of: victim)
        }
    }
}
