import SluiceCore
import SluiceGateway

/// A cache that `sluice cache` works on: a directory opened offline, or a running gateway's admin API.
protocol CacheTarget: Sendable {
    /// Totals.
    func stats() async throws(CommandError) -> CacheStatsResult
    /// Cached assets in index order, at most `limit` (all when nil).
    func list(limit: Int?) async throws(CommandError) -> [AdminAssetSummary]
    /// Purges one asset; false when it was not cached.
    func purge(_ asset: AssetID) async throws(CommandError) -> Bool
    /// Purges every asset.
    func purgeAll() async throws(CommandError)
    /// Reads back every chunk; bad ones are dropped.
    func verify() async throws(CommandError) -> AdminVerifyReport
    /// Re-seals under the current key what is sealed under a previous one, reporting progress as it goes.
    func rekey(progress: @Sendable (AdminRekey) -> Void) async throws(CommandError) -> AdminRekey
    /// Releases the cache.
    func close()
}
