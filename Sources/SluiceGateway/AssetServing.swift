import SluiceCache
import SluiceCore
import SluiceHTTP
import SluiceUpstream

/// Where a stream's content info and bytes come from: straight from the upstream, or through the range cache.
protocol AssetServing: Sendable {
    /// The object's current content info, and whether it came from the cache without asking the upstream.
    /// `refreshedAfter` asks the upstream even when the cached info is fresh, for an answer to a call made at or
    /// after that instant (a fetch found the object replaced then).
    /// A first read (`read`) of an asset whose content info is not known yet may learn it from its own fetch: the
    /// answer then carries the fill it opened, which the caller releases once its body is attached or not needed.
    func contentInfo(
        of asset: AssetID, from upstream: any Upstream, refreshedAfter: ContinuousClock.Instant?,
        opening read: OpeningRead?
    ) async throws(UpstreamError) -> ContentInfoLookup

    /// The key the cache stores `asset` under.
    func storageKey(for asset: AssetID) -> StorageKey

    /// The cached content info when it is fresh enough to use without asking the upstream; nil otherwise.
    func freshContentInfo(of target: StreamTarget) -> ContentInfo?

    /// A body for `range` when it can be sent right away from disk (every byte cached); nil otherwise.
    func cachedBody(of target: StreamTarget, info: ContentInfo, range: ByteRange) -> ServedBody?

    /// A body carrying exactly `range` of the object described by `info`, and whether its bytes came from cache.
    /// Fails before any byte is promised when the upstream refuses the fetch or the store cannot read.
    /// `opened` is the fill the request's content-info lookup opened, if it did: the upstream's first byte counts
    /// from when its request went out.
    func body(of target: StreamTarget, info: ContentInfo, range: ByteRange, opened: FillOpening?)
        async throws(ServeFailure) -> ServedBody
}

extension AssetServing {
    /// The object's current content info, asked for without a first read to open.
    func contentInfo(of asset: AssetID, from upstream: any Upstream, refreshedAfter: ContinuousClock.Instant?)
        async throws(UpstreamError) -> (info: ContentInfo, cached: Bool)
    {
        let lookup = try await contentInfo(of: asset, from: upstream, refreshedAfter: refreshedAfter, opening: nil)
        return (lookup.info, lookup.cached)
    }
}

/// What a stream request learned of its asset's content info.
struct ContentInfoLookup: Sendable {
    var info: ContentInfo
    /// Whether it came from the cache without asking the upstream.
    var cached: Bool
    /// The fill a first read opened to learn it, held for the request's body until released.
    var opening: FillOpening?
}

/// A response body with its cache outcome and the upstream's time to first byte, for headers and logs.
struct ServedBody: Sendable {
    /// The body to send.
    var body: HTTPResponse.Body
    /// `X-Cache` value.
    var cacheStatus: CacheStatus
    /// Time until the upstream's first response byte, when the upstream was asked.
    var upstreamFirstByte: Duration?
    /// Runs when the response ends (releases what the body needs kept in place).
    var onComplete: (@Sendable (Bool) -> Void)? = nil
}

/// The `X-Cache` outcome of a stream response (docs/api.md, Streams).
enum CacheStatus: String, Sendable {
    /// Every byte came from the cache.
    case hit = "HIT"
    /// No byte came from the cache.
    case miss = "MISS"
    /// Some bytes came from the cache.
    case partial = "PARTIAL"
}
