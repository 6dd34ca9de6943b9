import Foundation
import SluiceCore

/// What the cache holds for one asset.
public struct CacheEntry: Sendable, Equatable {
    /// Canonical asset ID (`nas://music/a.mp3`).
    public var assetID: String
    /// Content info recorded for the cached version.
    public var info: ContentInfo
    /// The cached version's validator (`info.validator` when it was recorded); writes must match it.
    public var validator: String?
    /// When the content info was last fetched or confirmed upstream.
    public var fetchedAt: Date
    /// Last read or write (touches are batched, so this may lag by one commit interval).
    public var lastAccess: Date
    /// Pinned assets are never evicted.
    public var pinned: Bool
    /// Readable chunks: present (synced, in the index) and pending (written, not yet synced).
    public var chunks: ChunkSet
    /// The subset of `chunks` that is synced and in the index.
    public var committedChunks: ChunkSet
    /// The chunk size the store uses.
    public var chunkSize: Int64

    /// Bytes of the object held in readable chunks.
    public var cachedBytes: Int64 {
        presentRanges.reduce(0) { $0 + $1.count }
    }

    /// The byte ranges of the object that are readable, ascending (the admin API's `ranges`).
    public var presentRanges: [ByteRange] {
        chunks.byteRanges(chunkSize: chunkSize, length: info.length)
    }

    /// Number of chunks an object of this length has.
    public var chunkCount: Int64 {
        (info.length + chunkSize - 1) / chunkSize
    }

    /// Whether every byte of `range` is readable.
    public func contains(_ range: ByteRange) -> Bool {
        range.last < info.length && chunks.contains(all: (range.first / chunkSize)...(range.last / chunkSize))
    }
}
