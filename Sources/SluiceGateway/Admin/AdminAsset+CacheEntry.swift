import SluiceCache

extension AdminAsset {
    /// The document of a cache entry and its latest prefetch.
    init(_ entry: CacheEntry, prefetch: AdminPrefetch?) {
        self.init(
            assetId: entry.assetID, contentLength: entry.info.length, contentType: entry.info.contentType,
            etag: entry.info.etag, lastModified: entry.info.lastModified, cachedBytes: entry.cachedBytes,
            ranges: entry.presentRanges.map { [$0.first, $0.last] }, lastAccess: entry.lastAccess,
            fetchedAt: entry.fetchedAt, pinned: entry.pinned, prefetch: prefetch)
    }
}
