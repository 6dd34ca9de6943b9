import Glibc
import SluiceCrypto

extension ChunkStore {
    /// Reads back every present chunk and checks its CRC-32 (and AEAD tag when encrypted). With `dropBad`
    /// each bad chunk is removed from the index so it is fetched again. Holds a lease on each asset while
    /// checking it; safe to run while the store serves.
    public func verify(dropBad: Bool) throws(CacheError) -> VerifyReport {
        var report = VerifyReport()
        var cursor: StorageKey?
        while true {
            let rows = try state.withLock { state throws(CacheError) in
                try state.openIndex().assets(after: cursor, limit: 64)
            }
            guard let last = rows.last else { return report }
            for row in rows {
                _ = try verifyAsset(row, from: 0, budget: .max, dropBad: dropBad, into: &report)
            }
            cursor = last.key
        }
    }

    /// Checks chunks of one asset from index `first` until `budget` stored bytes were read; returns the
    /// index to resume from, or nil when the asset is done.
    func verifyAsset(
        _ row: AssetRow, from first: Int64, budget: Int64, dropBad: Bool, into report: inout VerifyReport
    ) throws(CacheError) -> Int64? {
        let key = row.key
        let (chunks, lease, descriptor) = try state.withLock { state throws(CacheError) in
            let chunks = try state.openIndex().chunks(key, in: first...Int64.max)
            let lease = CacheLease(state.takeLease(key))
            return (chunks, lease, try FileIO.openIfExists(layout.dataFile(forKey: key), O_RDONLY))
        }
        defer {
            if let descriptor { FileIO.close(descriptor) }
            lease.release()
        }
        if first == 0 { report.assetsChecked += 1 }
        var spent: Int64 = 0
        for chunk in chunks {
            if spent >= budget { return chunk.index }
            var stored: [UInt8]?
            if let descriptor { stored = try storedChunk(chunk, descriptor: descriptor) }
            report.chunksChecked += 1
            report.bytesChecked += Int64(stored?.count ?? 0)
            spent += Int64(stored?.count ?? 0) + 1
            // A missing file or a short record is as bad as a checksum mismatch.
            if let stored, isIntact(stored, chunk, key: key) { continue }
            report.bad.append(VerifyReport.BadChunk(assetID: row.assetID, index: chunk.index))
            logger.warning("cache chunk failed verification", ["cache.key": key.text, "chunk": "\(chunk.index)"])
            if dropBad {
                try state.withLock { state throws(CacheError) in try state.dropChunk(key, chunk.index, reason: .corrupt)
                }
                report.dropped += 1
            }
        }
        return nil
    }

    /// Whether stored bytes match their CRC-32 and, when sealed, every segment's tag.
    private func isIntact(_ stored: [UInt8], _ chunk: ChunkRow, key: StorageKey) -> Bool {
        guard CRC32.checksum(stored) == chunk.crc else { return false }
        guard let keyring else { return true }
        guard let seal = chunk.seal, let aead = try? keyring.segmentCipher(seal, key: key, chunk: chunk.index) else {
            return false
        }
        var plaintext = [UInt8](repeating: 0, count: Int(chunk.size))
        defer { plaintext.wipe() }
        return openSealed(stored, into: &plaintext, chunk: chunk, seal: seal, aead: aead, key: key, keyring: keyring)
    }

    /// Opens every segment of a stored sealed chunk into `plaintext` (its size); false when one does not open.
    func openSealed(
        _ stored: [UInt8], into plaintext: inout [UInt8], chunk: ChunkRow, seal: ChunkSeal, aead: AEADCipher,
        key: StorageKey, keyring: CacheKeyring
    ) -> Bool {
        stored.withUnsafeBytes { sealed in
            plaintext.withUnsafeMutableBytes { buffer in
                (0..<SealedLayout.segments(chunk.size)).allSatisfy { segment in
                    let size = Int(SealedLayout.plaintextSize(of: segment, in: chunk.size))
                    let at = Int(segment * SealedLayout.storedSegmentSize)
                    let into = Int(segment * SealedLayout.segmentSize)
                    return
                        (try? keyring.openSegment(
                            UnsafeRawBufferPointer(rebasing: sealed[at..<(at + size + AEADCipher.tagSize)]), aead: aead,
                            seal: seal, key: key, chunk: chunk.index, segment: segment, size: chunk.size,
                            into: UnsafeMutableRawBufferPointer(rebasing: buffer[into..<(into + size)]))) != nil
                }
            }
        }
    }
}
