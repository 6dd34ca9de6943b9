import Foundation

extension StoreState {
    /// Admits a write: checks the version and chunk bounds, makes room, opens the data file. Nil when the
    /// chunk is already readable (writes are idempotent).
    mutating func beginWrite(
        key: StorageKey, chunk index: Int64, count: Int, validator: String?
    ) throws(CacheError) -> WriteTicket? {
        let database = try openIndex()
        guard let row = try database.asset(key) else { throw .unknownAsset }
        guard row.validator == validator else { throw .stale }
        let start = index.multipliedReportingOverflow(by: chunkSize)
        guard index >= 0, !start.overflow, start.partialValue < row.info.length,
            Int64(count) == min(chunkSize, row.info.length - start.partialValue)
        else { throw .invalidChunk(index: index) }
        if let current = runtime[key] {
            guard !current.writing.contains(index) else { throw .busy }
            if current.pending[index] != nil { return nil }
        }
        guard try database.chunks(key, in: index...index).isEmpty else { return nil }

        // One block of slack beyond the chunk's own blocks: an unaligned slot can straddle a block
        // boundary, and ext4 may allocate an extent-tree block for a sparse file.
        let reservation = Self.blocks(storedSize(Int64(count))) + 4096
        try makeRoom(reservation, sparing: key)
        if !writeMarks.contains(key) {
            // Committed before the first byte is written: after a crash, start-up measures this file.
            try database.markWriting(key)
            writeMarks.insert(key)
        }
        if try FileIO.makeDirectory(layout.dataDirectory) { measure(layout.dataDirectory) }
        let shard = layout.shardDirectory(forKey: key)
        try FileIO.makeDirectory(shard)
        let path = layout.dataFile(forKey: key)
        let created = !FileIO.exists(path)
        let descriptor = try FileIO.open(path, O_RDWR | O_CREAT)
        if created {
            openFiles[key] = nil
            measure(shard)
        }
        runtime[key, default: AssetRuntime()].writing.insert(index)
        if created { runtime[key]!.createdFile = true }
        reservedBytes += reservation
        touches[key] = now()
        return WriteTicket(
            key: key, index: index, descriptor: descriptor, offset: index * slotSize, reservation: reservation,
            generation: runtime[key]!.generation)
    }

    /// Completes a write whose bytes are in the file: the chunk becomes pending. Throws `.stale` when the
    /// asset was purged or replaced meanwhile. Returns whether a commit should start now.
    mutating func finishWrite(_ ticket: WriteTicket, size: Int64, crc: UInt32, seal: ChunkSeal?) throws(CacheError)
        -> Bool
    {
        guard try release(ticket) else { throw .stale }
        runtime[ticket.key]!.pending[ticket.index] = PendingChunk(
            size: size, crc: crc, seal: seal, serial: nextSerial(), writtenAt: now())
        pendingCount += 1
        return pendingCount >= commitBatchSize
    }

    /// Releases a ticket whose write failed; what was written stays accounted until the slot is reused.
    mutating func abandonWrite(_ ticket: WriteTicket) {
        do {
            _ = try release(ticket)
        } catch {
            logger.warning("cache accounting after failed write", ["error": "\(error)"])
        }
        prune(ticket.key)
    }

    /// Ends the reservation and measures the file; false when the asset changed generation.
    private mutating func release(_ ticket: WriteTicket) throws(CacheError) -> Bool {
        reservedBytes -= ticket.reservation
        runtime[ticket.key]?.writing.remove(ticket.index)
        guard runtime[ticket.key]?.generation == ticket.generation else {
            prune(ticket.key)
            return false
        }
        try setAllocated(ticket.key, try FileIO.allocatedBytes(ticket.descriptor))
        return true
    }
}
