import SluiceUpstream
import Synchronization

/// Counters for `/admin/cache` and `/metrics`, updated from any thread.
final class GatewayMetrics: Sendable {
    /// A point-in-time copy of every counter.
    struct Snapshot: Sendable {
        /// Responses by status code and cache outcome (`HIT`, `MISS`, `PARTIAL`, or `-` for non-stream answers).
        let responses: [ResponseKey: Int]
        /// Body bytes sent to clients from the cache.
        let bytesFromCache: Int64
        /// Bytes received from each upstream.
        let bytesFromUpstream: [String: Int64]
        /// Time to first upstream byte, per upstream.
        let firstByte: [String: Histogram]
        /// Failed upstream requests per upstream and error kind.
        let upstreamErrors: [String: [String: Int]]

        /// Stream responses answered fully from cache.
        var hits: Int { responses(with: .hit) }
        /// Stream responses with no byte from cache.
        var misses: Int { responses(with: .miss) }
        /// Stream responses with some bytes from cache.
        var partialHits: Int { responses(with: .partial) }
        /// Total bytes received from all upstreams.
        var totalBytesFromUpstream: Int64 { bytesFromUpstream.values.reduce(0, +) }

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

    /// What upstream traffic changes, under a lock (once per fetch, not per response).
    private struct UpstreamCounters {
        var bytes: [String: Int64] = [:]
        var firstByte: [String: Histogram] = [:]
        var errors: [String: [String: Int]] = [:]
    }

    private let upstreamCounters = Mutex(UpstreamCounters())
    /// Response counts and cache bytes, without a lock: they change on every response.
    private let tally = ResponseTally()
    private let cacheBytes = Atomic<Int64>(0)

    /// A copy of every counter.
    var snapshot: Snapshot {
        let counters = upstreamCounters.withLock { $0 }
        return Snapshot(
            responses: tally.counted, bytesFromCache: cacheBytes.load(ordering: .relaxed),
            bytesFromUpstream: counters.bytes, firstByte: counters.firstByte, upstreamErrors: counters.errors)
    }

    /// Counts one finished response.
    func record(status: Int, cache: String?) {
        tally.record(status: status, cache: cache)
    }

    /// Counts body bytes served from the cache.
    func add(bytesFromCache count: Int64) {
        cacheBytes.wrappingAdd(count, ordering: .relaxed)
    }

    /// Counts bytes received from `upstream`.
    func add(bytesFromUpstream count: Int64, upstream: String) {
        upstreamCounters.withLock { $0.bytes[upstream, default: 0] += count }
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
