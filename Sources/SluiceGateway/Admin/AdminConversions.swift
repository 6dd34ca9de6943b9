import SluiceCache

extension AdminAssetSummary {
    /// The summary of a cache entry.
    public init(_ entry: CacheEntry) {
        self.init(
            assetId: entry.assetID, contentLength: entry.info.length, cachedBytes: entry.cachedBytes,
            lastAccess: entry.lastAccess, pinned: entry.pinned)
    }
}

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

extension AdminVerifyReport {
    /// The document of a store verification.
    public init(_ report: VerifyReport) {
        self.init(
            assetsChecked: report.assetsChecked, chunksChecked: report.chunksChecked, bytesChecked: report.bytesChecked,
            bad: report.bad.map { BadChunk(assetId: $0.assetID, chunk: $0.index) }, dropped: report.dropped)
    }
}
