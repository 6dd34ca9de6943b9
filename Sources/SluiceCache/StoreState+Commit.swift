extension StoreState {
    /// The pending chunks to commit, per asset; clears the created-file marks it hands over.
    mutating func pendingBatch() -> [CommitItem] {
        var batch: [CommitItem] = []
        for (key, asset) in runtime where !asset.pending.isEmpty || asset.createdFile {
            batch.append(
                CommitItem(
                    key: key, chunks: asset.pending.map { (index: $0.key, chunk: $0.value) },
                    createdFile: asset.createdFile))
            runtime[key]!.createdFile = false
            prune(key)
        }
        return batch
    }

    /// Inserts the synced chunks of `batch` that are still the pending version (not purged, replaced or
    /// evicted meanwhile) with the batched updates, in one transaction; then they stop being pending.
    /// Chunks of `failed` assets (their sync failed) are dropped: their bytes cannot be trusted.
    mutating func commit(_ batch: [CommitItem], failed: Set<StorageKey>) throws(CacheError) {
        let index = try openIndex()
        let current = batch.filter { !failed.contains($0.key) }.map { item in
            (
                key: item.key,
                chunks: item.chunks.filter { runtime[item.key]?.pending[$0.index]?.serial == $0.chunk.serial }
            )
        }
        // Writeback can allocate filesystem metadata (an ext4 extent-tree block) that `fstat` after the
        // write did not show yet: measure again, the data being synced, so that the transaction records it.
        for item in current where runtime[item.key]?.writing.isEmpty ?? true {
            try setAllocated(item.key, FileIO.allocatedBytes(path: layout.dataFile(forKey: item.key)))
        }
        // Every ended write measured its file into the batched updates: a mark can go once no write is running.
        let settled = writeMarks.filter { runtime[$0]?.writing.isEmpty ?? true }
        try index.transaction { () throws(CacheError) in
            for item in current {
                for (chunkIndex, chunk) in item.chunks {
                    try index.insertChunk(
                        item.key, ChunkRow(index: chunkIndex, size: chunk.size, crc: chunk.crc, seal: chunk.seal),
                        writtenAt: chunk.writtenAt)
                }
            }
            try writeBatchedUpdates()
            for key in settled { try index.clearWriteMark(key) }
        }
        clearBatchedUpdates()
        writeMarks.subtract(settled)
        for item in current {
            let committed = Set(item.chunks.map(\.index))
            dropPending(item.key) { committed.contains($0) }
        }
        for item in batch where failed.contains(item.key) {
            let serials = Dictionary(uniqueKeysWithValues: item.chunks.map { ($0.index, $0.chunk.serial) })
            let pending = runtime[item.key]?.pending ?? [:]
            dropPending(item.key) { pending[$0]?.serial == serials[$0] }
        }
    }
}
