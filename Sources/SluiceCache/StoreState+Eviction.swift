import Foundation

extension StoreState {
    /// Evicts least-recently-used chunks until `bytes` more fit under `maxSize`, never touching `key`,
    /// pinned assets, leased assets or assets being written. Throws `.noSpace` when that is not enough.
    mutating func makeRoom(_ bytes: Int64, sparing key: StorageKey) throws(CacheError) {
        var excess = dataBytes + reservedBytes + bytes - (maxSize - overheadBytes())
        guard excess > 0 else { return }
        // The LRU query reads last access and allocation from the index: bring both up to date first.
        try flushBatchedUpdates()
        var cursor: (Double, StorageKey)?
        while excess > 0 {
            let candidates = try openIndex().leastRecentlyUsed(limit: 32, after: cursor)
            guard let last = candidates.last else { throw .noSpace }
            cursor = (last.lastAccess.timeIntervalSince1970, last.key)
            for row in candidates where row.key != key && isEvictable(row.key) {
                try evictTail(of: row, toFree: excess)
                excess = dataBytes + reservedBytes + bytes - (maxSize - overheadBytes())
                if excess <= 0 { return }
            }
        }
    }

    /// Evicts the highest-index chunks of an asset until at least about `bytes` are freed (the start of a file
    /// is what a player needs first), by truncating its data file at a multiple of ``chunksPerCut`` chunks; the
    /// whole file goes when that leaves no chunk.
    mutating func evictTail(of row: AssetRow, toFree bytes: Int64) throws(CacheError) {
        var sizes: [Int64: Int64] = [:]
        for chunk in try openIndex().chunks(row.key) { sizes[chunk.index] = chunk.size }
        for (index, pending) in runtime[row.key]?.pending ?? [:] { sizes[index] = pending.size }
        var cut: Int64?
        var freed: Int64 = 0
        for index in sizes.keys.sorted(by: >) where freed < bytes {
            cut = index
            freed += Self.blocks(storedSize(sizes[index]!))
        }
        guard let cut = cut.map({ $0 / chunksPerCut * chunksPerCut }), cut > sizes.keys.min()!,
            let descriptor = try FileIO.openIfExists(layout.dataFile(forKey: row.key), O_RDWR)
        else {
            try removeAsset(row.key, reason: .size, keepEntry: true)
            return
        }
        defer { FileIO.close(descriptor) }
        // The index forgets chunks before their bytes go, here and in `removeAsset`: a crash between the two
        // then leaves unlisted blocks (space, reclaimed later), never a listed chunk whose bytes are gone.
        let evicted = try openIndex().deleteChunks(row.key, in: cut...Int64.max)
        let droppedPending = dropPending(row.key) { $0 >= cut }
        count(.size, evicted + droppedPending)
        try FileIO.truncate(descriptor, to: cut * slotSize)
        try setAllocated(row.key, try FileIO.allocatedBytes(descriptor))
    }

    /// Deletes an asset's chunks (and its entry unless `keepEntry`), then its data file; a write in progress
    /// for it will be refused as stale. Returns how many chunks it had.
    @discardableResult
    mutating func removeAsset(_ key: StorageKey, reason: EvictionReason, keepEntry: Bool) throws(CacheError) -> Int {
        let index = try openIndex()
        let allocatedBefore = try allocated(key)
        var removed = try index.deleteChunks(key)
        if !keepEntry { try index.deleteAsset(key) }
        openFiles[key] = nil
        try FileIO.unlink(layout.dataFile(forKey: key))
        if keepEntry {
            try setAllocated(key, 0)
        } else {
            dataBytes -= allocatedBefore
            allocatedUpdates[key] = nil
            touches[key] = nil
        }
        removed += dropPending(key) { _ in true }
        if runtime[key] != nil {
            runtime[key]!.generation = nextSerial()
            runtime[key]!.createdFile = false
            prune(key)
        }
        measure(layout.shardDirectory(forKey: key))
        count(reason, removed)
        return removed
    }

    /// Removes one chunk from the index (its blocks stay allocated until the slot is rewritten or the asset
    /// is evicted).
    mutating func dropChunk(_ key: StorageKey, _ index: Int64, reason: EvictionReason) throws(CacheError) {
        let removed = try openIndex().deleteChunks(key, in: index...index) + dropPending(key) { $0 == index }
        count(reason, removed)
    }

    /// Forgets pending chunks of `key` whose index satisfies `predicate`; returns how many.
    @discardableResult
    mutating func dropPending(_ key: StorageKey, where predicate: (Int64) -> Bool) -> Int {
        guard let pending = runtime[key]?.pending else { return 0 }
        let dropped = pending.keys.filter(predicate)
        for index in dropped { runtime[key]!.pending[index] = nil }
        pendingCount -= dropped.count
        prune(key)
        return dropped.count
    }

    /// Bytes a chunk of `size` plaintext bytes occupies in its slot.
    func storedSize(_ size: Int64) -> Int64 {
        encrypted ? SealedLayout.storedSize(size) : size
    }

    /// `bytes` rounded up to whole 4 KiB filesystem blocks.
    static func blocks(_ bytes: Int64) -> Int64 {
        (bytes + 4095) / 4096 * 4096
    }
}
