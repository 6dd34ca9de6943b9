import SluiceCache

extension AdminAssetSummary {
    /// The summary of a cache entry.
    public init(_ entry: CacheEntry) {
        self.init(
            assetId: entry.assetID, contentLength: entry.info.length, cachedBytes: entry.cachedBytes,
            lastAccess: entry.lastAccess, pinned: entry.pinned)
    }
}
