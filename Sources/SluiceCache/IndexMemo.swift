/// The rows ``ChunkIndex`` last read or wrote for recently used assets, so that a cache hit asks SQLite
/// nothing: an asset row, and once asked for, all its chunk rows.
///
/// It mirrors the database because every write goes through ``ChunkIndex``, which forgets rows here before a
/// delete and records rows after an insert or update succeeds, and empties the memo when a transaction rolls
/// back: it may know less than the database, never more. Bounded: past ``maxAssets`` assets or ``maxChunks``
/// chunk rows, other assets are forgotten (read from SQLite again when next needed). Not thread-safe: it
/// lives inside ``ChunkStore``'s mutex.
final class IndexMemo {
    /// What the memo knows of an asset's chunk rows.
    enum Chunks {
        case notLoaded
        /// More rows than the memo keeps for one asset: always asked from SQLite.
        case tooMany
        case loaded([Int64: ChunkRow])
    }

    struct Entry {
        var row: AssetRow
        var chunks = Chunks.notLoaded
    }

    let maxAssets: Int
    let maxChunks: Int
    private var entries: [String: Entry] = [:]
    private var chunkCount = 0

    init(maxAssets: Int = 4096, maxChunks: Int = 1 << 18) {
        self.maxAssets = maxAssets
        self.maxChunks = maxChunks
    }

    subscript(key: String) -> Entry? { entries[key] }

    /// Remembers a row read from or written to the index; what is known of the asset's chunk rows stays (no
    /// statement on `assets` changes `chunks`).
    func remember(_ row: AssetRow) {
        if entries[row.key] == nil { makeRoom(assets: 1, chunks: 0) }
        entries[row.key, default: Entry(row: row)].row = row
    }

    /// Remembers all chunk rows of an asset whose row is remembered, or that it has too many to keep.
    func remember(_ chunks: [ChunkRow], of key: String) {
        guard entries[key] != nil else { return }
        forgetChunks(of: key)
        guard chunks.count <= maxChunks / 4 else {
            entries[key]?.chunks = .tooMany
            return
        }
        makeRoom(assets: 0, chunks: chunks.count, sparing: key)
        var rows: [Int64: ChunkRow] = [:]
        rows.reserveCapacity(chunks.count)
        for chunk in chunks { rows[chunk.index] = chunk }
        entries[key]?.chunks = .loaded(rows)
        chunkCount += chunks.count
    }

    /// Applies a change to a remembered row.
    func updateRow(_ key: String, _ change: (inout AssetRow) -> Void) {
        guard entries[key] != nil else { return }
        change(&entries[key]!.row)
    }

    /// Records an inserted or replaced chunk row (when the asset's chunks are loaded).
    func insert(_ chunk: ChunkRow, of key: String) {
        guard case .loaded(var rows) = entries[key]?.chunks else { return }
        entries[key]!.chunks = .notLoaded
        if rows.updateValue(chunk, forKey: chunk.index) == nil { chunkCount += 1 }
        entries[key]!.chunks = .loaded(rows)
    }

    /// Records deleted chunk rows (when the asset's chunks are loaded).
    func deleteChunks(of key: String, in indices: ClosedRange<Int64>) {
        guard case .loaded(var rows) = entries[key]?.chunks else { return }
        entries[key]!.chunks = .notLoaded
        let doomed = rows.keys.filter(indices.contains)
        for index in doomed { rows[index] = nil }
        chunkCount -= doomed.count
        entries[key]!.chunks = .loaded(rows)
    }

    /// Forgets an asset (about to be deleted, or no longer trusted).
    func forget(_ key: String) {
        forgetChunks(of: key)
        entries[key] = nil
    }

    /// Forgets everything.
    func forgetAll() {
        entries.removeAll()
        chunkCount = 0
    }

    private func forgetChunks(of key: String) {
        if case .loaded(let rows) = entries[key]?.chunks { chunkCount -= rows.count }
        entries[key]?.chunks = .notLoaded
    }

    private func makeRoom(assets: Int, chunks: Int, sparing spared: String? = nil) {
        while entries.count + assets > maxAssets, let victim = entries.keys.first(where: { $0 != spared }) {
            forget(victim)
        }
        while chunkCount + chunks > maxChunks,
            let victim = entries.first(where: { $0.key != spared && $0.value.isLoaded })?.key
        {
            forgetChunks(of: victim)
        }
    }
}

extension IndexMemo.Entry {
    var isLoaded: Bool {
        if case .loaded = chunks { return true }
        return false
    }
}
