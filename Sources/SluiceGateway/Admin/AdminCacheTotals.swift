/// `GET /admin/cache`: totals of the cache and of the traffic it served since the gateway started.
public struct AdminCacheTotals: Codable, Sendable, Equatable {
    /// Assets with an entry in the cache index.
    public var entries: Int
    /// Allocated disk bytes of the cache directory.
    public var diskBytes: Int64
    /// The configured `cache.maxSize`.
    public var maxBytes: Int64
    /// Stream responses answered fully from cache (`X-Cache: HIT`).
    public var hits: Int
    /// Stream responses with no byte from cache (`X-Cache: MISS`).
    public var misses: Int
    /// Stream responses with some bytes from cache (`X-Cache: PARTIAL`).
    public var partialHits: Int
    /// Body bytes sent to clients from the cache.
    public var bytesFromCache: Int64
    /// Bytes received from all upstreams.
    public var bytesFromUpstream: Int64
    /// Byte hit ratio: `bytesFromCache / (bytesFromCache + bytesFromUpstream)`, 0 before any byte moved.
    public var hitRatio: Double
    /// Chunks evicted since the gateway started, all reasons together.
    public var evictions: Int
    /// Chunks evicted since the gateway started, by reason (`size`, `age`, `corrupt`, `version`, `purge`).
    public var evictionsByReason: [String: Int]
    /// Upstream fetches running now.
    public var inflightFetches: Int

    /// Creates totals.
    public init(
        entries: Int, diskBytes: Int64, maxBytes: Int64, hits: Int, misses: Int, partialHits: Int,
        bytesFromCache: Int64, bytesFromUpstream: Int64, evictionsByReason: [String: Int], inflightFetches: Int
    ) {
        self.entries = entries
        self.diskBytes = diskBytes
        self.maxBytes = maxBytes
        self.hits = hits
        self.misses = misses
        self.partialHits = partialHits
        self.bytesFromCache = bytesFromCache
        self.bytesFromUpstream = bytesFromUpstream
        self.hitRatio = Self.ratio(bytesFromCache, of: bytesFromCache + bytesFromUpstream)
        self.evictions = evictionsByReason.values.reduce(0, +)
        self.evictionsByReason = evictionsByReason
        self.inflightFetches = inflightFetches
    }

    /// `part / whole`, or 0 when `whole` is 0.
    static func ratio(_ part: Int64, of whole: Int64) -> Double {
        whole > 0 ? Double(part) / Double(whole) : 0
    }
}
