import Foundation
import SluiceCore
import SluiceCrypto

extension ChunkStore {
    /// Opens the index; a file SQLite reports as not a database or corrupt is moved aside and replaced by
    /// an empty index (`rebuilt` true), so a damaged cache never blocks start-up.
    static func openIndex(
        layout: CacheLayout, walLimit: Int64, keyring: CacheKeyring?, logger: Logger, now: @Sendable () -> Date
    ) throws(CacheError) -> (ChunkIndex, rebuilt: Bool) {
        do {
            let index = try ChunkIndex(path: layout.indexPath, walLimit: walLimit, keyring: keyring)
            return (index, index.replacedSchema)
        } catch .index(let code, _) where code & 0xFF == 26 || code & 0xFF == 11 {
            // 26 is SQLITE_NOTADB, 11 SQLITE_CORRUPT (sqlite.org/rescode.html); other failures (permissions,
            // a full disk) are not repaired by starting over and are reported instead.
            let aside = layout.indexPath + ".corrupt-\(Int64(now().timeIntervalSince1970))"
            try FileIO.rename(layout.indexPath, to: aside)
            for suffix in ["-wal", "-shm"] where FileIO.exists(layout.indexPath + suffix) {
                try FileIO.rename(layout.indexPath + suffix, to: aside + suffix)
            }
            logger.warning(
                "cache index unreadable, moved aside and rebuilt empty",
                ["cache.index": aside, "sqlite.code": "\(code)"])
            return (try ChunkIndex(path: layout.indexPath, walLimit: walLimit, keyring: keyring), true)
        }
    }

    /// The chunk size an existing cache was written with, when it is one the store can use.
    static func recordedChunkSize(_ index: ChunkIndex) throws(CacheError) -> Int64? {
        guard let text = try index.meta("chunk_size"), let size = Int64(text), size > 0, size <= 1 << 30,
            size & (size - 1) == 0
        else { return nil }
        return size
    }

    /// Empties the cache when the index was rebuilt or was written with another chunk size or with encryption on
    /// where it is off now, or off where it is on (`sealing`): its data files cannot be read with the current
    /// settings. `unopenable` (no configured key opens it, which ``naming(_:keyring:logger:)`` reported) empties it too.
    static func checkCompatibility(_ state: inout StoreState, rebuilt: Bool, unopenable: Bool, sealing: String)
        throws(CacheError)
    {
        let index = try state.openIndex()
        let chunkSize = String(state.chunkSize)
        let storedChunkSize = try index.meta("chunk_size")
        let storedSealing = try index.meta("sealing")
        let fresh = storedChunkSize == nil && storedSealing == nil
        let incompatible = rebuilt || (!fresh && (storedChunkSize != chunkSize || storedSealing != sealing))
        if incompatible || unopenable {
            if incompatible {
                state.logger.warning(
                    "cache emptied: index rebuilt, chunk size changed, or encryption turned on or off",
                    ["cache.directory": state.layout.root])
            }
            try index.deleteAll()
            try moveDataToTrash(&state)
        }
        try index.setMeta("chunk_size", chunkSize)
        try index.setMeta("sealing", sealing)
    }

    /// Measures the data files of assets still marked as being written (``ChunkIndex/markWriting(_:)``), which
    /// only a crash leaves behind, and records their allocation: blocks written after the last commit count
    /// against the cap from the start. A marked file without an index entry is deleted. Clears the marks.
    static func measureMarkedFiles(_ state: inout StoreState) throws(CacheError) {
        let index = try state.openIndex()
        let keys = try index.writeMarks()
        guard !keys.isEmpty else { return }
        let layout = state.layout
        try index.transaction { () throws(CacheError) in
            for key in keys {
                let path = layout.dataFile(forKey: key)
                if try index.asset(key) != nil {
                    try index.setAllocated(key, FileIO.allocatedBytes(path: path))
                } else if FileIO.exists(path) {
                    try FileIO.unlink(path)
                }
                try index.clearWriteMark(key)
            }
        }
        state.logger.info("cache data files measured after an unclean stop", ["cache.files": "\(keys.count)"])
    }

    /// Moves `data/` under `trash/` (one rename, however many files) and forgets every chunk in memory;
    /// the caller schedules ``emptyTrash()``.
    static func moveDataToTrash(_ state: inout StoreState) throws(CacheError) {
        let layout = state.layout
        if FileIO.exists(layout.dataDirectory) {
            try FileIO.makeDirectory(layout.trashDirectory)
            let name = "data-\(Int64(state.now().timeIntervalSince1970))-\(Hex.encode(SecureRandom.bytes(count: 4)))"
            try FileIO.rename(layout.dataDirectory, to: layout.trashDirectory + "/" + name)
        }
        state.openFiles.removeAll()
        state.trashBytes += state.dataBytes
        state.dataBytes = 0
        state.allocatedUpdates.removeAll()
        // The index's marks went with its rows (``ChunkIndex/deleteAll()``).
        state.writeMarks.removeAll()
        for key in Array(state.runtime.keys) {
            state.runtime[key]!.pending.removeAll()
            state.runtime[key]!.generation = state.nextSerial()
            state.runtime[key]!.createdFile = false
            state.prune(key)
        }
        state.pendingCount = 0
        state.measuredBytes = state.measuredBytes.filter { !$0.key.hasPrefix(layout.dataDirectory) }
        state.measure(layout.dataDirectory)
        state.measure(layout.trashDirectory)
    }
}
