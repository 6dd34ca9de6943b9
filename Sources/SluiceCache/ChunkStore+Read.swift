import SluiceCore
import SluiceCrypto

extension ChunkStore {
    /// The bytes of `range` of `assetID`, from present or pending chunks of the version whose validator is
    /// `validator`. Throws `.stale` when the cached version is another one, `.notCached` when any chunk
    /// covering the range is neither present nor pending, `.corrupt(index)` when a sealed segment fails its tag or a
    /// chunk is short on disk (the chunk is dropped, so the caller refetches it). Holds a lease while reading, so the
    /// range cannot be evicted under it. Blocks for the `pread`s; call it off libmicrohttpd's threads or for small
    /// ranges.
    public func read(_ range: ByteRange, of assetID: String, validator: String?) throws(CacheError) -> [UInt8] {
        try read(range, storageKey: state.withLock { $0.key(for: assetID) }, validator: validator)
    }

    /// ``read(_:of:validator:)`` of the asset stored under `key` (``storageKey(for:)``).
    public func read(_ range: ByteRange, storageKey key: StorageKey, validator: String?) throws(CacheError) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(range.count))
        try out.withUnsafeMutableBytes { buffer in
            Result { () throws(CacheError) in try read(range, storageKey: key, validator: validator, into: buffer) }
        }.get()
        return out
    }

    /// ``read(_:of:validator:)`` of the asset stored under `key` into `out`, which holds exactly `range`. In an
    /// encrypted store it opens only the segments holding the range, and copies those held in decrypted memory.
    public func read(
        _ range: ByteRange, storageKey key: StorageKey, validator: String?, into out: UnsafeMutableRawBufferPointer
    ) throws(CacheError) {
        precondition(Int64(out.count) == range.count, "read buffer has the wrong size")
        let access = try state.withLock { state throws(CacheError) in
            try state.beginRead(key: key, range: range, validator: validator)
        }
        defer { access.lease.release() }
        guard let keyring else {
            let count = try FileIO.read(access.file.descriptor, into: out, at: range.first)
            guard count == out.count else {
                let bad = (range.first + Int64(count)) / options.chunkSize
                try dropCorrupt(key, bad)
                throw .corrupt(index: bad)
            }
            return
        }
        for chunk in access.chunks {
            try openChunk(chunk, of: key, range: range, descriptor: access.file.descriptor, keyring: keyring, into: out)
        }
    }

    /// The region of a data file holding the plaintext of `range` of the version with `validator`: nil when the
    /// cache is encrypted, the cached version is another one, or any chunk covering the range is neither present
    /// nor pending. The region's lease keeps the chunks from eviction; the caller releases it when the transfer
    /// ends.
    public func fileRegion(_ range: ByteRange, of assetID: String, validator: String?) -> CacheFileRegion? {
        guard keyring == nil else { return nil }
        return fileRegion(range, storageKey: state.withLock { $0.key(for: assetID) }, validator: validator)
    }

    /// ``fileRegion(_:of:validator:)`` of the asset stored under `key` (``storageKey(for:)``), for callers that keep
    /// the key of an asset they read again and again.
    public func fileRegion(_ range: ByteRange, storageKey key: StorageKey, validator: String?) -> CacheFileRegion? {
        guard keyring == nil,
            let (file, count) = try? state.withLock({ state throws(CacheError) in
                try state.beginFileRead(key: key, range: range, validator: validator)
            })
        else { return nil }
        return CacheFileRegion(file: file, offset: range.first, count: range.count, lease: CacheLease(count))
    }

    /// The stored bytes of a chunk, checked for length; the caller holds a lease.
    func storedChunk(_ chunk: ChunkRow, descriptor: Int32) throws(CacheError) -> [UInt8]? {
        let size = keyring == nil ? chunk.size : SealedLayout.storedSize(chunk.size)
        let stored = try FileIO.read(descriptor, count: Int(size), at: chunk.index * slotSize)
        return stored.count == Int(size) ? stored : nil
    }

    /// Writes the plaintext of the part of `range` in sealed chunk `chunk` into `out` (which holds `range`): segments
    /// in decrypted memory are copied, the others read in one `pread` and opened. A short read or a bad tag drops the
    /// chunk and throws `.corrupt`.
    private func openChunk(
        _ chunk: ChunkRow, of key: StorageKey, range: ByteRange, descriptor: Int32, keyring: CacheKeyring,
        into out: UnsafeMutableRawBufferPointer
    ) throws(CacheError) {
        let start = chunk.index * options.chunkSize
        let low = max(range.first, start) - start
        let high = min(range.last, start + chunk.size - 1) - start
        guard let seal = chunk.seal, let aead = try? keyring.segmentCipher(seal, key: key, chunk: chunk.index) else {
            try dropCorrupt(key, chunk)
            throw .corrupt(index: chunk.index)
        }
        let segment = SealedLayout.segmentSize
        /// The part of segment `s` the range needs, as offsets in the segment and in `out`.
        func wanted(_ s: Int64) -> (from: Int, count: Int, at: Int) {
            let from = max(low, s * segment) - s * segment
            let to = min(high, s * segment + SealedLayout.plaintextSize(of: s, in: chunk.size) - 1) - s * segment
            return (Int(from), Int(to - from + 1), Int(start + s * segment + from - range.first))
        }
        func id(_ s: Int64) -> SegmentMemory.SegmentID {
            SegmentMemory.SegmentID(key: key, chunk: chunk.index, segment: s, writeID: seal.writeID)
        }
        let missing = (low / segment...high / segment).filter { s in
            let part = wanted(s)
            return segments?.copy(
                id(s), from: part.from,
                into: UnsafeMutableRawBufferPointer(rebasing: out[part.at..<(part.at + part.count)])) != true
        }
        guard let first = missing.first, let last = missing.last else { return }
        let offset = chunk.index * slotSize + first * SealedLayout.storedSegmentSize
        let storedEnd = min(
            (last + 1) * SealedLayout.storedSegmentSize, SealedLayout.storedSize(chunk.size))
        let stored = try FileIO.read(
            descriptor, count: Int(storedEnd - first * SealedLayout.storedSegmentSize), at: offset)
        var plaintext = [UInt8](repeating: 0, count: Int(segment))
        for s in missing {
            let size = Int(SealedLayout.plaintextSize(of: s, in: chunk.size))
            let at = Int((s - first) * SealedLayout.storedSegmentSize)
            guard at + size + AEADCipher.tagSize <= stored.count else {
                try dropCorrupt(key, chunk)
                throw .corrupt(index: chunk.index)
            }
            let opened = stored.withUnsafeBytes { sealed in
                plaintext.withUnsafeMutableBytes { buffer in
                    let target = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<size])
                    do {
                        try keyring.openSegment(
                            UnsafeRawBufferPointer(rebasing: sealed[at..<(at + size + AEADCipher.tagSize)]), aead: aead,
                            seal: seal, key: key, chunk: chunk.index, segment: s, size: chunk.size, into: target)
                    } catch {
                        return false
                    }
                    segments?.insert(id(s), UnsafeRawBufferPointer(target))
                    let part = wanted(s)
                    UnsafeMutableRawBufferPointer(rebasing: out[part.at..<(part.at + part.count)])
                        .copyMemory(
                            from: UnsafeRawBufferPointer(rebasing: buffer[part.from..<(part.from + part.count)]))
                    return true
                }
            }
            guard opened else {
                try dropCorrupt(key, chunk)
                throw .corrupt(index: chunk.index)
            }
        }
        plaintext.wipe()
    }

    func dropCorrupt(_ key: StorageKey, _ index: Int64) throws(CacheError) {
        logger.warning("cache chunk failed its integrity check, dropped", ["cache.key": key.text, "chunk": "\(index)"])
        try state.withLock { state throws(CacheError) in try state.dropChunk(key, index, reason: .corrupt) }
    }

    /// Drops sealed chunk `chunk` as it was read: unless it was written again meanwhile (a rekey or a refetch gave
    /// it another write ID), in which case the bytes read were the new write's, not damaged ones.
    func dropCorrupt(_ key: StorageKey, _ chunk: ChunkRow) throws(CacheError) {
        let dropped = try state.withLock { state throws(CacheError) in
            guard try state.readableChunks(key, in: chunk.index...chunk.index)[chunk.index]?.seal == chunk.seal else {
                return false
            }
            try state.dropChunk(key, chunk.index, reason: .corrupt)
            return true
        }
        if dropped {
            logger.warning(
                "cache chunk failed its integrity check, dropped", ["cache.key": key.text, "chunk": "\(chunk.index)"])
        }
    }
}
