import SluiceCore
import SluiceCrypto

extension ChunkStore {
    /// The bytes of `range` of `assetID`, from present or pending chunks of the version whose validator is
    /// `validator`. Throws `.stale` when the cached version is another one, `.notCached` when any chunk
    /// covering the range is neither present nor pending, `.corrupt(index)` when a sealed chunk fails its tag or a chunk is short on
    /// disk (the chunk is dropped, so the caller refetches it). Holds a lease while reading, so the range
    /// cannot be evicted under it. Blocks for the `pread`s; call it off libmicrohttpd's threads or for small
    /// ranges.
    public func read(_ range: ByteRange, of assetID: String, validator: String?) throws(CacheError) -> [UInt8] {
        let (key, access) = try state.withLock { state throws(CacheError) in
            let key = state.key(for: assetID)
            return (key, try state.beginRead(key: key, range: range, validator: validator))
        }
        defer { access.lease.release() }
        guard sealer != nil else {
            let bytes = try FileIO.read(access.file.descriptor, count: Int(range.count), at: range.first)
            guard bytes.count == Int(range.count) else {
                let bad = (range.first + Int64(bytes.count)) / options.chunkSize
                try dropCorrupt(key, bad)
                throw .corrupt(index: bad)
            }
            return bytes
        }
        var out: [UInt8] = []
        out.reserveCapacity(Int(range.count))
        for chunk in access.chunks {
            let plaintext = try openedChunk(key: key, chunk, descriptor: access.file.descriptor)
            let start = chunk.index * options.chunkSize
            let low = Int(max(range.first, start) - start)
            let high = Int(min(range.last, start + chunk.size - 1) - start)
            out += plaintext[low...high]
        }
        return out
    }

    /// The region of a data file holding the plaintext of `range` of the version with `validator`: nil when the
    /// cache is encrypted, the cached version is another one, or any chunk covering the range is neither present
    /// nor pending. The region's lease keeps the chunks from eviction; the caller releases it when the transfer
    /// ends.
    public func fileRegion(_ range: ByteRange, of assetID: String, validator: String?) -> CacheFileRegion? {
        guard sealer == nil else { return nil }
        return fileRegion(range, storageKey: state.withLock { $0.key(for: assetID) }, validator: validator)
    }

    /// ``fileRegion(_:of:validator:)`` of the asset stored under `key` (``storageKey(for:)``), for callers that keep
    /// the key of an asset they read again and again.
    public func fileRegion(_ range: ByteRange, storageKey key: StorageKey, validator: String?) -> CacheFileRegion? {
        guard sealer == nil,
            let (file, count) = try? state.withLock({ state throws(CacheError) in
                try state.beginFileRead(key: key, range: range, validator: validator)
            })
        else { return nil }
        return CacheFileRegion(file: file, offset: range.first, count: range.count, lease: CacheLease(count))
    }

    /// The stored bytes of a chunk, checked for length; the caller holds a lease.
    func storedChunk(_ chunk: ChunkRow, descriptor: Int32) throws(CacheError) -> [UInt8]? {
        let size = sealer == nil ? chunk.size : chunk.size + Int64(Self.sealOverhead)
        let stored = try FileIO.read(descriptor, count: Int(size), at: chunk.index * slotSize)
        return stored.count == Int(size) ? stored : nil
    }

    /// The plaintext of a sealed chunk; a short record or bad tag drops the chunk and throws `.corrupt`.
    private func openedChunk(key: StorageKey, _ chunk: ChunkRow, descriptor: Int32) throws(CacheError) -> [UInt8] {
        if let sealer, let stored = try storedChunk(chunk, descriptor: descriptor),
            let plaintext = try? sealer.open(stored, associatedData: Self.associatedData(key: key, index: chunk.index))
        {
            return plaintext
        }
        try dropCorrupt(key, chunk.index)
        throw .corrupt(index: chunk.index)
    }

    func dropCorrupt(_ key: StorageKey, _ index: Int64) throws(CacheError) {
        logger.warning("cache chunk failed its integrity check, dropped", ["cache.key": key.text, "chunk": "\(index)"])
        try state.withLock { state throws(CacheError) in try state.dropChunk(key, index, reason: .corrupt) }
    }
}
