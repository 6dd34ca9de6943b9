/// Totals of a cache directory read offline (`sluice cache stats --json` without `--server`).
struct CacheOfflineStats: Codable, Equatable {
    /// Assets in the index.
    var entries: Int
    /// Allocated disk bytes of the directory.
    var diskBytes: Int64
    /// The configured maximum size (`cache.maxSize`, or its default with `--dir`).
    var maxBytes: Int64
    /// Bytes of objects held in chunks.
    var cachedBytes: Int64
    /// Pinned assets.
    var pinned: Int
}
