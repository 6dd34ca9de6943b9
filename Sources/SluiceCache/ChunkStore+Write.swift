import SluiceCrypto

extension ChunkStore {
    /// Writes chunk `index` of `assetID`: `bytes` is the whole chunk (`chunkSize` bytes, or the rest of the
    /// object for the last chunk).
    ///
    /// Makes room first (evicting least-recently-used chunks, never pinned, leased or in-progress ones) and
    /// throws `.noSpace` when it cannot, so allocated bytes never exceed `maxSize`. Throws `.stale` when
    /// `validator` is not the validator of the recorded content info (two versions are never mixed) or the
    /// asset was replaced during the write, `.unknownAsset` without content info, `.busy` when the same chunk
    /// is being written, `.noSpace`/`.io` on filesystem errors (the chunk is then not cached). Returns at once
    /// when the chunk is already readable. On success the chunk is readable immediately (pending) and is
    /// marked present by the committer after its bytes are synced. Called from any thread; blocks for the
    /// `pwrite` only.
    public func write(
        chunk index: Int64, of assetID: String, bytes: UnsafeRawBufferPointer, validator: String?
    ) throws(CacheError) {
        let key = state.withLock { $0.key(for: assetID) }
        let admitted = try state.withLock { state throws(CacheError) in
            try state.beginWrite(key: key, chunk: index, count: bytes.count, validator: validator)
        }
        guard let ticket = admitted else { return }
        defer { FileIO.close(ticket.descriptor) }
        let stored: (crc: UInt32, seal: ChunkSeal?)
        do {
            stored = try store(bytes, ticket: ticket)
        } catch {
            state.withLock { $0.abandonWrite(ticket) }
            throw error
        }
        let commitNow = try state.withLock { state throws(CacheError) in
            try state.finishWrite(ticket, size: Int64(bytes.count), crc: stored.crc, seal: stored.seal)
        }
        scheduleCommit(now: commitNow)
    }

    /// Writes consecutive chunks of `assetID` from chunk `first`: `bytes` holds whole chunks (the last may be the
    /// object's shorter last chunk). In a plaintext store they go out in one `pwrite`, so that the page cache holds
    /// them in one folio when they fill one (see ``chunksPerFolio``); otherwise, or when one of them is already
    /// readable or being written, chunk by chunk. Errors as ``write(chunk:of:bytes:validator:)``, except that a
    /// chunk being written by another call (`.busy`) is left to it.
    public func write(chunks first: Int64, of assetID: String, bytes: UnsafeRawBufferPointer, validator: String?)
        throws(CacheError)
    {
        let size = Int(options.chunkSize)
        let pieces = stride(from: 0, to: bytes.count, by: size).map { start in
            UnsafeRawBufferPointer(rebasing: bytes[start..<min(start + size, bytes.count)])
        }
        if pieces.count > 1, keyring == nil,
            let tickets = try admit(
                pieces, from: first, key: state.withLock { $0.key(for: assetID) }, validator: validator)
        {
            try store(pieces, in: bytes, tickets: tickets)
            return
        }
        for (offset, piece) in pieces.enumerated() {
            do {
                try write(chunk: first + Int64(offset), of: assetID, bytes: piece, validator: validator)
            } catch .busy {
                continue
            }
        }
    }

    /// How many chunks fill one of the page cache's largest folios (2 MiB on x86-64), which the kernel maps into
    /// a process with one TLB entry: writing that many at once (``write(chunks:of:bytes:validator:)``) makes hits
    /// on them cheaper to copy. 1 without ``CacheOptions/hugePages``, when encrypting (records are not folio
    /// aligned) or when chunks are that large.
    public var chunksPerFolio: Int64 {
        let folio = PageCache.largestFolio
        guard options.hugePages, keyring == nil, options.chunkSize < folio, folio % options.chunkSize == 0 else {
            return 1
        }
        return folio / options.chunkSize
    }

    /// Admits every chunk of a run for writing, in order; nil (nothing admitted) when one of them is already
    /// readable or being written.
    private func admit(_ pieces: [UnsafeRawBufferPointer], from first: Int64, key: StorageKey, validator: String?)
        throws(CacheError) -> [WriteTicket]?
    {
        var tickets: [WriteTicket] = []
        do {
            for (offset, piece) in pieces.enumerated() {
                let chunk = first + Int64(offset)
                let ticket = try state.withLock { state throws(CacheError) in
                    try state.beginWrite(key: key, chunk: chunk, count: piece.count, validator: validator)
                }
                guard let ticket else { break }
                tickets.append(ticket)
            }
        } catch .busy {
            // Another call is writing one of the chunks: the run goes chunk by chunk.
        } catch {
            abandon(tickets)
            throw error
        }
        guard tickets.count == pieces.count else {
            abandon(tickets)
            return nil
        }
        return tickets
    }

    /// Writes an admitted run in one `pwrite` (the slots of a plaintext store are the chunks' own offsets) and
    /// makes its chunks pending.
    private func store(_ pieces: [UnsafeRawBufferPointer], in bytes: UnsafeRawBufferPointer, tickets: [WriteTicket])
        throws(CacheError)
    {
        do {
            try FileIO.writeAll(tickets[0].descriptor, bytes, at: tickets[0].offset)
        } catch {
            abandon(tickets)
            throw error
        }
        var commitNow = false
        for (position, ticket) in tickets.enumerated() {
            defer { FileIO.close(ticket.descriptor) }
            let piece = pieces[position]
            do {
                let now = try state.withLock { state throws(CacheError) in
                    try state.finishWrite(ticket, size: Int64(piece.count), crc: CRC32.checksum(piece), seal: nil)
                }
                commitNow = commitNow || now
            } catch {
                abandon(Array(tickets[(position + 1)...]))
                throw error
            }
        }
        scheduleCommit(now: commitNow)
    }

    /// Gives up admitted writes that will not happen, closing their descriptors.
    private func abandon(_ tickets: [WriteTicket]) {
        state.withLock { state in
            for ticket in tickets { state.abandonWrite(ticket) }
        }
        for ticket in tickets { FileIO.close(ticket.descriptor) }
    }

    /// Writes chunk `index` from an array; see ``write(chunk:of:bytes:validator:)``.
    public func write(chunk index: Int64, of assetID: String, bytes: [UInt8], validator: String?) throws(CacheError) {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(CacheError) in try write(chunk: index, of: assetID, bytes: buffer, validator: validator)
            }
        }.get()
    }

    /// Writes the chunk (sealed when encrypting) into its slot; returns the CRC-32 of the stored bytes and how they
    /// were sealed.
    private func store(_ bytes: UnsafeRawBufferPointer, ticket: WriteTicket) throws(CacheError)
        -> (crc: UInt32, seal: ChunkSeal?)
    {
        guard let keyring else {
            try FileIO.writeAll(ticket.descriptor, bytes, at: ticket.offset)
            return (CRC32.checksum(bytes), nil)
        }
        var record = [UInt8](repeating: 0, count: Int(SealedLayout.storedSize(Int64(bytes.count))))
        let seal = try record.withUnsafeMutableBytes { out in
            Result { () throws(CacheError) in
                do throws(CryptoError) {
                    return try keyring.sealChunk(bytes, key: ticket.key, chunk: ticket.index, into: out)
                } catch {
                    throw .crypto(error)
                }
            }
        }.get()
        try record.withUnsafeBytes { record in
            Result { () throws(CacheError) in try FileIO.writeAll(ticket.descriptor, record, at: ticket.offset) }
        }.get()
        return (CRC32.checksum(record), seal)
    }
}
