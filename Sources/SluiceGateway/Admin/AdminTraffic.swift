/// The byte accounting of stream responses, for all upstreams or one (docs/api.md, "Byte accounting"): bytes
/// sent to clients by where they came from, bytes fetched from upstreams by why, and the two hit ratios.
public struct AdminTraffic: Codable, Sendable, Equatable {
    /// Body bytes sent that were in the store when their response began.
    public var bytesSentFromCache: Int64
    /// Body bytes sent that were fetched for their response.
    public var bytesSentFromUpstream: Int64
    /// Bytes received from upstreams, all reasons together.
    public var bytesFetched: Int64
    /// Bytes received from upstreams by reason: `reader`, `readahead`, `prefetch`.
    public var bytesFetchedByReason: [String: Int64]
    /// Stream responses answered fully from cache (`X-Cache: HIT`).
    public var hits: Int
    /// Stream responses with no byte from cache (`X-Cache: MISS`).
    public var misses: Int
    /// Stream responses with some bytes from cache (`X-Cache: PARTIAL`).
    public var partialHits: Int
    /// Stream requests answered with a redirect to the provider's download link (redirect delivery).
    public var redirects: Int
    /// `bytesSentFromCache / (bytesSentFromCache + bytesSentFromUpstream)`, 0 before any byte was sent.
    public var byteHitRatio: Double
    /// `hits / (hits + misses + partialHits)`, 0 before any stream response.
    public var requestHitRatio: Double

    /// The accounting of `sent` and `fetched` (bytes by reason, every reason listed).
    init(sent: UpstreamTraffic.Snapshot, fetched: [FetchReason: Int64]) {
        bytesSentFromCache = sent.sentFromCache
        bytesSentFromUpstream = sent.sentFromUpstream
        bytesFetchedByReason = Dictionary(
            uniqueKeysWithValues: FetchReason.allCases.map { ($0.rawValue, fetched[$0] ?? 0) })
        bytesFetched = fetched.values.reduce(0, +)
        hits = sent.hits
        misses = sent.misses
        partialHits = sent.partialHits
        redirects = sent.redirects
        byteHitRatio = Self.ratio(sent.sentFromCache, of: sent.sent)
        requestHitRatio = Self.ratio(Int64(sent.hits), of: Int64(sent.responses))
    }

    /// `part / whole`, or 0 when `whole` is 0.
    static func ratio(_ part: Int64, of whole: Int64) -> Double {
        whole > 0 ? Double(part) / Double(whole) : 0
    }
}
