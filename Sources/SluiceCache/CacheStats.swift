/// Totals of a ``ChunkStore``.
public struct CacheStats: Sendable, Equatable {
    /// Assets with content info in the index.
    public var entries: Int
    /// Allocated disk bytes: data blocks, directories, index files, and deleted data not yet reclaimed.
    public var diskBytes: Int64
    /// The configured `maxSize`.
    public var maxBytes: Int64
    /// Chunks written but not yet synced and marked present.
    public var pendingChunks: Int
    /// Chunks evicted since the store was opened, by reason.
    public var evictions: [EvictionReason: Int]

    /// Creates totals.
    public init(entries: Int, diskBytes: Int64, maxBytes: Int64, pendingChunks: Int, evictions: [EvictionReason: Int]) {
        self.entries = entries
        self.diskBytes = diskBytes
        self.maxBytes = maxBytes
        self.pendingChunks = pendingChunks
        self.evictions = evictions
    }

    /// Sum of `evictions` over every reason.
    public var totalEvictions: Int { evictions.values.reduce(0, +) }
}
