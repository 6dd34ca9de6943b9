import Foundation
import SluiceCore

extension StoreState {
    /// Admits a read of `range` of the version with `validator`: every chunk covering it must be readable.
    /// Takes a lease the caller ends with ``endRead(_:)`` and opens the data file read-only.
    mutating func beginRead(key: String, range: ByteRange, validator: String?) throws(CacheError) -> ReadAccess {
        guard let row = try openIndex().asset(key), range.last < row.info.length else { throw .notCached }
        guard row.validator == validator else { throw .stale }
        let indices = (range.first / chunkSize)...(range.last / chunkSize)
        let chunks = try readableChunks(key, in: indices)
        guard chunks.count == indices.count,
            let descriptor = try FileIO.openIfExists(layout.dataFile(forKey: key), O_RDONLY)
        else { throw .notCached }
        runtime[key, default: AssetRuntime()].leases += 1
        touches[key] = now()
        return ReadAccess(descriptor: descriptor, chunks: chunks.values.sorted { $0.index < $1.index })
    }

    mutating func endRead(_ key: String) {
        runtime[key]?.leases -= 1
        prune(key)
    }
}
