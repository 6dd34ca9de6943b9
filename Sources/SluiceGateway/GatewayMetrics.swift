import SluiceUpstream
import Synchronization

/// Counters for `/admin/cache` and `/metrics`, updated from any thread.
final class GatewayMetrics: Sendable {
    /// A point-in-time copy of every counter.
    struct Snapshot: Sendable {
        /// Responses by status code and cache outcome (`HIT`, `MISS`, `PARTIAL`, or `-` for non-stream answers).
        let responses: [ResponseKey: Int]
        /// Bytes sent and responses by outcome, per upstream.
        let traffic: [String: UpstreamTraffic.Snapshot]
        /// Bytes received from each upstream, by why they were fetched.
        let fetched: [String: [FetchReason: Int64]]
        /// Time to first upstream byte, per upstream.
        let firstByte: [String: Histogram]
        /// Failed upstream requests per upstream and error kind.
        let upstreamErrors: [String: [String: Int]]
        /// Requests answered 429 by each per-client limit.
        var limited: [ClientLimit: Int] = [:]

        /// Stream responses answered fully from cache.
        var hits: Int { responses(with: .hit) }
        /// Stream responses with no byte from cache.
        var misses: Int { responses(with: .miss) }
        /// Stream responses with some bytes from cache.
        var partialHits: Int { responses(with: .partial) }
        /// What every upstream's responses sent, together.
        var totalTraffic: UpstreamTraffic.Snapshot { traffic.values.reduce(UpstreamTraffic.Snapshot(), +) }
        /// Bytes received from `upstream`, all reasons together.
        func bytesFetched(from upstream: String) -> Int64 { fetched[upstream]?.values.reduce(0, +) ?? 0 }
        /// Bytes received from all upstreams, by reason.
        var totalFetchedByReason: [FetchReason: Int64] {
            fetched.values.reduce(into: [:]) { total, reasons in total.merge(reasons, uniquingKeysWith: +) }
        }

        private func responses(with outcome: CacheStatus) -> Int {
            responses.reduce(0) { $0 + ($1.key.cache == outcome.rawValue ? $1.value : 0) }
        }
    }

    /// Status code and cache outcome of a response.
    struct ResponseKey: Hashable, Sendable {
        /// HTTP status.
        var status: Int
        /// `X-Cache` value, or `-`.
        var cache: String
    }

    /// A cumulative latency histogram with fixed bucket bounds in seconds.
    struct Histogram: Sendable {
        /// Upper bounds of the buckets, in seconds.
        static let bounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
        /// Observations at or below each bound.
        var counts = [Int](repeating: 0, count: bounds.count)
        /// Number of observations.
        var count = 0
        /// Sum of observations in seconds.
        var sum: Double = 0

        mutating func observe(_ seconds: Double) {
            for (index, bound) in Self.bounds.enumerated() where seconds <= bound { counts[index] += 1 }
            count += 1
            sum += seconds
        }
    }

    /// What upstream traffic changes, under a lock (once per received piece or fetch, not per response).
    private struct UpstreamCounters {
        var fetched: [String: [FetchReason: Int64]] = [:]
        var firstByte: [String: Histogram] = [:]
        var errors: [String: [String: Int]] = [:]
        /// Traffic of upstreams that were not configured when the metrics were made (tests, removed upstreams).
        var otherTraffic: [String: UpstreamTraffic] = [:]
    }

    private let upstreamCounters = Mutex(UpstreamCounters())
    /// Response counts, without a lock: they change on every response.
    private let tally = ResponseTally()
    /// Per-upstream response traffic of the configured upstreams, looked up without a lock.
    private let configuredTraffic: [String: UpstreamTraffic]
    /// Refusals by the request-rate limit and by the new-asset limit.
    private let rateRefusals = Atomic<Int>(0)
    private let newAssetRefusals = Atomic<Int>(0)

    /// Metrics for the upstreams named in `upstreams` (others are counted too, through a lock).
    init(upstreams: [String] = []) {
        configuredTraffic = Dictionary(uniqueKeysWithValues: upstreams.map { ($0, UpstreamTraffic()) })
    }

    /// A copy of every counter.
    var snapshot: Snapshot {
        let counters = upstreamCounters.withLock { $0 }
        let traffic = configuredTraffic.merging(counters.otherTraffic) { configured, _ in configured }
        return Snapshot(
            responses: tally.counted, traffic: traffic.mapValues(\.snapshot), fetched: counters.fetched,
            firstByte: counters.firstByte, upstreamErrors: counters.errors,
            limited: [
                .rate: rateRefusals.load(ordering: .relaxed), .newAssets: newAssetRefusals.load(ordering: .relaxed),
            ])
    }

    /// Counts a request a per-client limit answered 429.
    func countRefusal(_ limit: ClientLimit) {
        switch limit {
        case .rate: rateRefusals.add(1, ordering: .relaxed)
        case .newAssets: newAssetRefusals.add(1, ordering: .relaxed)
        }
    }

    /// The response traffic counters of `upstream` (resolved once per stream target, not per response).
    func traffic(of upstream: String) -> UpstreamTraffic {
        if let configured = configuredTraffic[upstream] { return configured }
        return upstreamCounters.withLock { counters in
            if let known = counters.otherTraffic[upstream] { return known }
            let traffic = UpstreamTraffic()
            counters.otherTraffic[upstream] = traffic
            return traffic
        }
    }

    /// Counts one finished response.
    func record(status: Int, cache: String?) {
        tally.record(status: status, cache: cache)
    }

    /// Counts bytes received from `upstream`, split by why they were fetched.
    func add(fetched split: FetchSplit, upstream: String) {
        guard split.total > 0 else { return }
        upstreamCounters.withLock { counters in
            for (reason, count) in split.parts where count > 0 {
                counters.fetched[upstream, default: [:]][reason, default: 0] += count
            }
        }
    }

    /// Records an upstream's time to first byte.
    func observeFirstByte(_ duration: Duration, upstream: String) {
        upstreamCounters.withLock { $0.firstByte[upstream, default: Histogram()].observe(duration.timeInterval) }
    }

    /// Counts a failed upstream request.
    func recordUpstreamError(_ error: UpstreamError, upstream: String) {
        upstreamCounters.withLock { $0.errors[upstream, default: [:]][error.kind, default: 0] += 1 }
    }
}

/// Received bytes split by ``FetchReason``.
struct FetchSplit: Equatable, Sendable {
    var reader: Int64 = 0
    var readahead: Int64 = 0
    var prefetch: Int64 = 0

    /// Every part with its reason.
    var parts: [(FetchReason, Int64)] { [(.reader, reader), (.readahead, readahead), (.prefetch, prefetch)] }
    /// All the bytes.
    var total: Int64 { reader + readahead + prefetch }
}
