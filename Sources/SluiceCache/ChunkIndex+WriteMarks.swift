/// Write marks: the keys of assets whose data files may hold blocks that `assets.allocated` does not count yet.
///
/// A write's blocks are counted in memory as soon as it ends, but reach `assets.allocated` only with the next
/// commit. A store marks an asset (committed at once) before its first write since the last commit, and clears the
/// mark in the commit that records the allocation of its last write. After a crash, only the marked assets' data
/// files need measuring for the byte count to be true again, so start-up never walks the data directory.
extension ChunkIndex {
    /// Marks `key` as being written.
    func markWriting(_ key: StorageKey) throws(CacheError) {
        try database.statement("INSERT OR IGNORE INTO write_marks(key) VALUES (?)").bind(.text(key.text)).run()
    }

    /// Clears the mark of `key`.
    func clearWriteMark(_ key: StorageKey) throws(CacheError) {
        try database.statement("DELETE FROM write_marks WHERE key = ?").bind(.text(key.text)).run()
    }

    /// Every marked key that has the form of a cache key (a key naming no data file is never a path).
    func writeMarks() throws(CacheError) -> [StorageKey] {
        let statement = try database.statement("SELECT key FROM write_marks")
        var keys: [StorageKey] = []
        while try statement.step() {
            if let key = statement.text(0).flatMap({ CacheLayout.key(fromFileName: $0 + ".dat") }) { keys.append(key) }
        }
        return keys
    }
}
