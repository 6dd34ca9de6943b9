import SluiceUpstream
import Synchronization

/// Counters for `/admin/cache` and `/metrics`, updated from any thread.
final class GatewayMetrics: Sendable {
    /// A point-in-time copy of every counter.
    struct Snapshot: Sendable {
        /// Responses by status code and cache outcome (`HIT`, `MISS`, `PARTIAL`, or `-` for non-stream answers).
        var responses: [ResponseKey: Int] = [:]
        /// Stream responses answered fully from cache.
        var hits = 0
        /// Stream responses with no byte from cache.
        var misses = 0
        /// Stream responses with some bytes from cache.
        var partialHits = 0
        /// Body bytes sent to clients from the cache.
        var bytesFromCache: Int64 = 0
        /// Bytes received from each upstream.
        var bytesFromUpstream: [String: Int64] = [:]
        /// Time to first upstream byte, per upstream.
        var firstByte: [String: Histogram] = [:]
        /// Failed upstream requests per upstream and error kind.
        var upstreamErrors: [String: [String: Int]] = [:]

        /// Total bytes received from all upstreams.
        var totalBytesFromUpstream: Int64 { bytesFromUpstream.values.reduce(0, +) }
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

    private let state = Mutex(Snapshot())
    /// Response counts and cache bytes, apart from `state`: they change on every response.
    private let tally = ResponseTally()
    private let cacheBytes = Atomic<Int64>(0)

    /// A copy of every counter.
    var snapshot: Snapshot {
        var snapshot = state.withLock { $0 }
        snapshot.bytesFromCache = cacheBytes.load(ordering: .relaxed)
        snapshot.responses = tally.counted
        for (key, count) in snapshot.responses {
            switch key.cache {
            case CacheStatus.hit.rawValue: snapshot.hits += count
            case CacheStatus.miss.rawValue: snapshot.misses += count
            case CacheStatus.partial.rawValue: snapshot.partialHits += count
            default: break
            }
        }
        return snapshot
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
        state.withLock { $0.bytesFromUpstream[upstream, default: 0] += count }
    }

    /// Records an upstream's time to first byte.
    func observeFirstByte(_ duration: Duration, upstream: String) {
        state.withLock { $0.firstByte[upstream, default: Histogram()].observe(duration.timeInterval) }
    }

    /// Counts a failed upstream request.
    func recordUpstreamError(_ error: UpstreamError, upstream: String) {
        state.withLock { $0.upstreamErrors[upstream, default: [:]][error.kind, default: 0] += 1 }
    }
}
