import SluiceGateway

/// What `stats` found: a running gateway's totals and counters, or what an offline directory holds.
enum CacheStatsResult {
    /// `GET /admin/cache`.
    case server(AdminCacheTotals)
    /// Read from the index.
    case offline(CacheOfflineStats)
}
