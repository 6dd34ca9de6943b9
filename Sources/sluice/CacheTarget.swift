import SluiceCore
import SluiceGateway

/// A cache that `sluice cache` works on: a directory opened offline, or a running gateway's admin API.
protocol CacheTarget: Sendable {
    /// Totals.
    func stats() async throws(CacheCommandError) -> CacheStatsResult
    /// Cached assets in index order, at most `limit` (all when nil).
    func list(limit: Int?) async throws(CacheCommandError) -> [AdminAssetSummary]
    /// Purges one asset; false when it was not cached.
    func purge(_ asset: AssetID) async throws(CacheCommandError) -> Bool
    /// Purges every asset.
    func purgeAll() async throws(CacheCommandError)
    /// Reads back every chunk; bad ones are dropped.
    func verify() async throws(CacheCommandError) -> AdminVerifyReport
    /// Releases the cache.
    func close()
}

/// What `stats` found: a running gateway's totals and counters, or what an offline directory holds.
enum CacheStatsResult {
    /// `GET /admin/cache`.
    case server(AdminCacheTotals)
    /// Read from the index.
    case offline(CacheOfflineStats)
}

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
