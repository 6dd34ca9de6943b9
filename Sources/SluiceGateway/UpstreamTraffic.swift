import Synchronization

/// What one upstream's stream responses sent and how they were answered, counted without a lock: these change on
/// every response, cache hits included.
final class UpstreamTraffic: Sendable {
    /// Body bytes sent that were in the store when their response began.
    private let sentFromCache = Atomic<Int64>(0)
    /// Body bytes sent that were fetched for their response.
    private let sentFromUpstream = Atomic<Int64>(0)
    /// Responses by `X-Cache` outcome.
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)
    private let partialHits = Atomic<Int>(0)
    /// Streams answered with a redirect to the provider (redirect delivery).
    private let redirects = Atomic<Int>(0)

    /// Counts body bytes sent, by where they came from.
    func send(fromCache cache: Int64, fromUpstream upstream: Int64) {
        if cache > 0 { sentFromCache.wrappingAdd(cache, ordering: .relaxed) }
        if upstream > 0 { sentFromUpstream.wrappingAdd(upstream, ordering: .relaxed) }
    }

    /// Counts one response answered with `outcome`.
    func count(_ outcome: CacheStatus) {
        switch outcome {
        case .hit: hits.wrappingAdd(1, ordering: .relaxed)
        case .miss: misses.wrappingAdd(1, ordering: .relaxed)
        case .partial: partialHits.wrappingAdd(1, ordering: .relaxed)
        }
    }

    /// Counts one stream answered with a redirect to the provider.
    func countRedirect() {
        redirects.wrappingAdd(1, ordering: .relaxed)
    }

    /// A copy of the counts.
    var snapshot: Snapshot {
        Snapshot(
            sentFromCache: sentFromCache.load(ordering: .relaxed),
            sentFromUpstream: sentFromUpstream.load(ordering: .relaxed),
            hits: hits.load(ordering: .relaxed), misses: misses.load(ordering: .relaxed),
            partialHits: partialHits.load(ordering: .relaxed), redirects: redirects.load(ordering: .relaxed))
    }

    /// The counts at one moment.
    struct Snapshot: Sendable, Equatable {
        var sentFromCache: Int64 = 0
        var sentFromUpstream: Int64 = 0
        var hits = 0
        var misses = 0
        var partialHits = 0
        var redirects = 0

        /// Body bytes sent in all.
        var sent: Int64 { sentFromCache + sentFromUpstream }
        /// Responses with an `X-Cache` outcome.
        var responses: Int { hits + misses + partialHits }

        /// The sum of two upstreams' counts.
        static func + (a: Snapshot, b: Snapshot) -> Snapshot {
            Snapshot(
                sentFromCache: a.sentFromCache + b.sentFromCache,
                sentFromUpstream: a.sentFromUpstream + b.sentFromUpstream,
                hits: a.hits + b.hits, misses: a.misses + b.misses, partialHits: a.partialHits + b.partialHits,
                redirects: a.redirects + b.redirects)
        }
    }
}
