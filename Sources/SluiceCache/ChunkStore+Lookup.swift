import Foundation
import SluiceCore

extension ChunkStore {
    /// The recorded content info of `assetID` and when it was fetched, without its chunk list: the cheap lookup
    /// a request makes before it knows which bytes it needs.
    public func contentInfo(for assetID: String) throws(CacheError) -> (info: ContentInfo, fetchedAt: Date)? {
        try state.withLock { state throws(CacheError) in try state.contentInfo(state.key(for: assetID)) }
    }

    /// ``contentInfo(for:)`` of the asset stored under `key` (``storageKey(for:)``), for callers that keep the key
    /// of an asset they look up again and again.
    public func contentInfo(storageKey key: StorageKey) throws(CacheError) -> (info: ContentInfo, fetchedAt: Date)? {
        try state.withLock { state throws(CacheError) in try state.contentInfo(key) }
    }

    /// The runs of chunk indices in `indices` that are neither present nor pending for the version of `assetID`
    /// whose validator is `validator` (all of them when another version, or nothing, is recorded). Reads only the
    /// chunk rows in `indices`.
    public func missingChunks(in indices: ClosedRange<Int64>, of assetID: String, validator: String?)
        throws(CacheError) -> [ClosedRange<Int64>]
    {
        let readable = try state.withLock { state throws(CacheError) -> [Int64] in
            let key = state.key(for: assetID)
            guard let row = try state.openIndex().asset(key), row.validator == validator else { return [] }
            return Array(try state.readableChunks(key, in: indices).keys)
        }
        return ChunkSet(readable).missing(in: indices)
    }
}
