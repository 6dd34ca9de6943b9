import Glibc
import SluiceCore
import SluiceCrypto

extension ChunkStore {
    /// Re-seals under the current key every index row and chunk still sealed under a previous one, while the store
    /// serves; afterwards the previous keys can be removed from the configuration. Calls `progress` after each batch.
    ///
    /// A chunk is re-sealed by reading and opening it, removing its index row, and writing its plaintext again
    /// through ``write(chunk:of:bytes:validator:)``, which seals it under the current key and marks it present once
    /// its bytes are synced. A crash in between leaves the chunk absent (fetched again when read), never a row that
    /// names bytes it does not describe. A chunk that does not open is dropped. Throws `.notEncrypted` for a
    /// plaintext store.
    @discardableResult
    public func rekey(progress: (RekeyProgress) -> Void = { _ in }) throws(CacheError) -> RekeyProgress {
        guard let keyring else { throw .notEncrypted }
        let current = keyring.current.id
        var report = RekeyProgress()
        report.chunksTotal = try state.withLock { state throws(CacheError) in
            try state.openIndex().countSealed(notUnder: current).chunks
        }
        progress(report)
        try resealAssetRows(&report, progress: progress)
        var cursor: (StorageKey, Int64)?
        while true {
            let batch = try state.withLock { state throws(CacheError) in
                try state.openIndex().chunks(sealedNotUnder: current, after: cursor, limit: 64)
            }
            guard let last = batch.last else { break }
            cursor = (last.key, last.chunk.index)
            for (key, chunk) in batch {
                if try reseal(chunk, of: key) {
                    report.chunksResealed += 1
                } else {
                    report.chunksDropped += 1
                }
            }
            progress(report)
        }
        flush()
        progress(report)
        logger.info(
            "cache re-sealed under the current key",
            ["cache.chunks": "\(report.chunksResealed)", "cache.dropped": "\(report.chunksDropped)"])
        return report
    }

    /// Re-seals the identifying fields of asset rows sealed under a previous key.
    private func resealAssetRows(_ report: inout RekeyProgress, progress: (RekeyProgress) -> Void) throws(CacheError) {
        guard let keyring else { return }
        while true {
            let count = try state.withLock { state throws(CacheError) in
                let index = try state.openIndex()
                let keys = try index.assetKeys(sealedNotUnder: keyring.current.id, limit: 256)
                try index.transaction { () throws(CacheError) in
                    for key in keys {
                        if let row = try index.asset(key) {
                            try index.insertAsset(row)
                        } else {
                            try state.removeAsset(key, reason: .corrupt, keepEntry: false)
                        }
                    }
                }
                return keys.count
            }
            guard count > 0 else { return }
            report.assetsResealed += count
            progress(report)
        }
    }

    /// Re-seals one chunk; false when it did not open or changed since it was listed (then it is dropped or left
    /// to whoever changed it).
    private func reseal(_ chunk: ChunkRow, of key: StorageKey) throws(CacheError) -> Bool {
        guard let keyring, let seal = chunk.seal else { return false }
        let (row, lease, descriptor) = try state.withLock { state throws(CacheError) in
            let row = try state.openIndex().asset(key)
            return (
                row, CacheLease(state.takeLease(key)), try FileIO.openIfExists(layout.dataFile(forKey: key), O_RDONLY)
            )
        }
        defer {
            if let descriptor { FileIO.close(descriptor) }
            lease.release()
        }
        guard let row, let descriptor else { return false }
        var plaintext = [UInt8](repeating: 0, count: Int(chunk.size))
        defer { plaintext.wipe() }
        guard let stored = try storedChunk(chunk, descriptor: descriptor), CRC32.checksum(stored) == chunk.crc,
            let aead = try? keyring.segmentCipher(seal, key: key, chunk: chunk.index),
            openSealed(stored, into: &plaintext, chunk: chunk, seal: seal, aead: aead, key: key, keyring: keyring)
        else {
            try dropCorrupt(key, chunk)
            return false
        }
        let removed = try state.withLock { state throws(CacheError) in
            let index = try state.openIndex()
            guard try index.chunks(key, in: chunk.index...chunk.index).first?.seal == seal else { return false }
            return try index.deleteChunks(key, in: chunk.index...chunk.index) == 1
        }
        guard removed else { return false }
        do throws(CacheError) {
            try write(chunk: chunk.index, of: row.assetID, bytes: plaintext, validator: row.validator)
        } catch .busy, .stale, .noSpace {
            // A fill is writing the chunk, the asset changed, or there is no room: the chunk stays absent.
            return false
        }
        return true
    }
}
