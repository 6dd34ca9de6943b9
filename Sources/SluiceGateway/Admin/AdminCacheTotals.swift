/// `GET /admin/cache`: totals of the cache and of the traffic it served since the gateway started.
public struct AdminCacheTotals: Codable, Sendable, Equatable {
    /// Assets with an entry in the cache index.
    public var entries: Int
    /// Allocated disk bytes of the cache directory.
    public var diskBytes: Int64
    /// The configured `cache.maxSize`.
    public var maxBytes: Int64
    /// Stream responses answered fully from cache (`X-Cache: HIT`), of every kind of response (also 304 and HEAD).
    public var hits: Int
    /// Stream responses with no byte from cache (`X-Cache: MISS`).
    public var misses: Int
    /// Stream responses with some bytes from cache (`X-Cache: PARTIAL`).
    public var partialHits: Int
    /// Body bytes sent that were in the store when their response began.
    public var bytesSentFromCache: Int64
    /// Body bytes sent that were fetched for their response.
    public var bytesSentFromUpstream: Int64
    /// Bytes received from all upstreams.
    public var bytesFetched: Int64
    /// Bytes received from all upstreams, by reason (`reader`, `readahead`, `prefetch`).
    public var bytesFetchedByReason: [String: Int64]
    /// `bytesSentFromCache / (bytesSentFromCache + bytesSentFromUpstream)`, 0 before any byte was sent.
    public var byteHitRatio: Double
    /// `hits / (hits + misses + partialHits)`, 0 before any stream response.
    public var requestHitRatio: Double
    /// The same accounting per configured upstream, by name.
    public var upstreams: [String: AdminTraffic]
    /// Deprecated (until 0.3): `bytesSentFromCache`.
    public var bytesFromCache: Int64
    /// Deprecated (until 0.3): `bytesFetched`.
    public var bytesFromUpstream: Int64
    /// Deprecated (until 0.3): `byteHitRatio`.
    public var hitRatio: Double
    /// Chunks evicted since the gateway started, all reasons together.
    public var evictions: Int
    /// Chunks evicted since the gateway started, by reason (`size`, `age`, `corrupt`, `version`, `purge`).
    public var evictionsByReason: [String: Int]
    /// Upstream fetches running now.
    public var inflightFetches: Int

    /// Totals from the store's counts and `traffic`, the accounting of every upstream together.
    init(
        entries: Int, diskBytes: Int64, maxBytes: Int64, hits: Int, misses: Int, partialHits: Int,
        traffic: AdminTraffic, upstreams: [String: AdminTraffic], evictionsByReason: [String: Int],
        inflightFetches: Int
    ) {
        self.entries = entries
        self.diskBytes = diskBytes
        self.maxBytes = maxBytes
        self.hits = hits
        self.misses = misses
        self.partialHits = partialHits
        bytesSentFromCache = traffic.bytesSentFromCache
        bytesSentFromUpstream = traffic.bytesSentFromUpstream
        bytesFetched = traffic.bytesFetched
        bytesFetchedByReason = traffic.bytesFetchedByReason
        byteHitRatio = traffic.byteHitRatio
        requestHitRatio = AdminTraffic.ratio(Int64(hits), of: Int64(hits + misses + partialHits))
        self.upstreams = upstreams
        bytesFromCache = traffic.bytesSentFromCache
        bytesFromUpstream = traffic.bytesFetched
        hitRatio = traffic.byteHitRatio
        self.evictions = evictionsByReason.values.reduce(0, +)
        self.evictionsByReason = evictionsByReason
        self.inflightFetches = inflightFetches
    }
}
