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
        let key = CacheLayout.key(for: assetID)
        let admitted = try state.withLock { state throws(CacheError) in
            try state.beginWrite(key: key, chunk: index, count: bytes.count, validator: validator)
        }
        guard let ticket = admitted else { return }
        defer { FileIO.close(ticket.descriptor) }
        let crc: UInt32
        do {
            crc = try store(bytes, ticket: ticket)
        } catch {
            state.withLock { $0.abandonWrite(ticket) }
            throw error
        }
        let commitNow = try state.withLock { state throws(CacheError) in
            try state.finishWrite(ticket, size: Int64(bytes.count), crc: crc)
        }
        scheduleCommit(now: commitNow)
    }

    /// Writes chunk `index` from an array; see ``write(chunk:of:bytes:validator:)``.
    public func write(chunk index: Int64, of assetID: String, bytes: [UInt8], validator: String?) throws(CacheError) {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(CacheError) in try write(chunk: index, of: assetID, bytes: buffer, validator: validator)
            }
        }.get()
    }

    /// Associated data of a sealed chunk: its asset key and index, so a record cannot be moved to another
    /// slot or file without failing its tag.
    static func associatedData(key: String, index: Int64) -> [UInt8] {
        Array(key.utf8) + withUnsafeBytes(of: index.bigEndian) { Array($0) }
    }

    /// Writes the chunk (sealed when encrypting) into its slot; returns the CRC-32 of the stored bytes.
    private func store(_ bytes: UnsafeRawBufferPointer, ticket: WriteTicket) throws(CacheError) -> UInt32 {
        guard let sealer else {
            try FileIO.writeAll(ticket.descriptor, bytes, at: ticket.offset)
            return CRC32.checksum(bytes)
        }
        let record: [UInt8]
        do {
            record = try sealer.seal(bytes, associatedData: Self.associatedData(key: ticket.key, index: ticket.index))
        } catch {
            throw .crypto(error)
        }
        try record.withUnsafeBytes { record in
            Result { () throws(CacheError) in try FileIO.writeAll(ticket.descriptor, record, at: ticket.offset) }
        }.get()
        return CRC32.checksum(record)
    }
}
