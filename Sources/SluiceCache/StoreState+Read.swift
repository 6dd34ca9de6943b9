import Foundation
import SluiceCore

extension StoreState {
    /// Admits a read of `range` of the version with `validator`: every chunk covering it must be readable.
    /// Takes a lease the caller releases and hands out the shared read-only data-file handle.
    mutating func beginRead(key: StorageKey, range: ByteRange, validator: String?) throws(CacheError) -> ReadAccess {
        let (indices, length) = try admit(key: key, range: range, validator: validator)
        let chunks = try readableChunks(key, in: indices)
        guard chunks.count == indices.count else { throw .notCached }
        let (file, lease) = try leaseFile(key, indices, length: length)
        return ReadAccess(file: file, lease: lease, chunks: chunks.values.sorted { $0.index < $1.index })
    }

    /// ``beginRead(key:range:validator:)`` for `sendfile`: the same checks and lease, without listing the chunks.
    mutating func beginFileRead(key: StorageKey, range: ByteRange, validator: String?) throws(CacheError)
        -> (file: DataFileHandle, lease: LeaseCount)
    {
        let (indices, length) = try admit(key: key, range: range, validator: validator)
        guard try openIndex().allPresent(key, in: indices, orPending: { runtime[key]?.pending[$0] != nil }) else {
            throw .notCached
        }
        return try leaseFile(key, indices, length: length)
    }

    /// The recorded content info of `key` and when it was fetched.
    func contentInfo(_ key: StorageKey) throws(CacheError) -> (info: ContentInfo, fetchedAt: Date)? {
        try openIndex().asset(key) { ($0.info, $0.fetchedAt) }
    }

    /// The chunk indices covering `range`, and the asset's length, when the version with `validator` is recorded
    /// and long enough.
    private func admit(key: StorageKey, range: ByteRange, validator: String?) throws(CacheError)
        -> (indices: ClosedRange<Int64>, length: Int64)
    {
        guard let (length, sameVersion) = try openIndex().asset(key, { ($0.info.length, $0.validator == validator) }),
            range.last < length
        else { throw .notCached }
        guard sameVersion else { throw .stale }
        return ((range.first / chunkSize)...(range.last / chunkSize), length)
    }

    /// The data file of an admitted read of chunks `indices` of an asset of `length` bytes, with a lease taken and
    /// the access recorded. A file gone (removed outside Sluice) while the index lists chunks in it loses them all,
    /// so that they are fetched again rather than refused on every read.
    private mutating func leaseFile(_ key: StorageKey, _ indices: ClosedRange<Int64>, length: Int64) throws(CacheError)
        -> (file: DataFileHandle, lease: LeaseCount)
    {
        guard let file = try dataFile(key, length: length) else {
            let dropped = try removeAsset(key, reason: .corrupt, keepEntry: true)
            logger.warning(
                "cache data file missing, its chunks dropped", ["cache.key": key.text, "chunks": "\(dropped)"])
            throw .corrupt(index: indices.lowerBound)
        }
        touches[key] = now()
        return (file, takeLease(key))
    }

    /// The shared read-only handle of the data file of `key`, an asset of `length` bytes, opened (and, in a
    /// plaintext store, mapped) when not open yet; nil when there is no file.
    mutating func dataFile(_ key: StorageKey, length: Int64) throws(CacheError) -> DataFileHandle? {
        if let open = openFiles[key] { return open }
        guard let descriptor = try FileIO.openIfExists(layout.dataFile(forKey: key), O_RDONLY) else { return nil }
        if openFiles.count >= Self.maxOpenFiles, let victim = openFiles.keys.first {
            openFiles[victim] = nil
        }
        let file = DataFileHandle(descriptor: descriptor, mappedLength: encrypted ? 0 : length, hugePages: hugePages)
        openFiles[key] = file
        return file
    }

    /// The index key of `assetID` (``CacheLayout/key(for:)``), remembered for the assets asked for most recently.
    mutating func key(for assetID: String) -> StorageKey {
        let exact = ExactString(assetID)
        if let key = keys[exact] { return key }
        if keys.count >= Self.maxRememberedKeys { keys.removeAll(keepingCapacity: true) }
        let key = layout.key(for: assetID)
        keys[exact] = key
        return key
    }
}
