import SluiceCore
import SluiceHTTP

/// Writes one structured line per finished request: request id, method, path, upstream, range, status,
/// bytes sent (for a stream response also split by source, docs/api.md "Byte accounting"), duration, cache outcome
/// and upstream first-byte time. The query string is never logged (it may carry a URL signature), nor is any request
/// header other than Range.
struct AccessLog: Sendable {
    /// Where lines go.
    let logger: Logger
    /// Counts responses by status and cache outcome.
    let metrics: GatewayMetrics

    /// The request header fields a line holds: the exchange of a cache hit carries only these.
    static let headerFields = ["Range"]

    /// Logs `exchange`.
    func record(_ exchange: HTTPExchange) {
        metrics.record(status: exchange.status, cache: exchange.responseHeaders["X-Cache"])
        guard logger.isEnabled(.info) else { return }
        let request = exchange.request
        var fields: [String: String] = [
            "request.id": exchange.responseHeaders["X-Request-Id"] ?? "-",
            "method": request.method,
            "path": request.path,
            "status": String(exchange.status),
            "bytes": String(exchange.bytesSent),
            "duration.ms": (exchange.finishedAt - exchange.startedAt).milliseconds,
            "client": request.remoteAddress,
        ]
        if !exchange.completed { fields["aborted"] = "true" }
        if let range = request.headers["Range"] { fields["range"] = String(range.prefix(100)) }
        if let cache = exchange.responseHeaders["X-Cache"] {
            fields["cache.status"] = cache
            // A streamed body knows its split; any other body of a stream response is a hit from the store.
            let split: (cache: Int64, upstream: Int64) =
                (exchange.bodySource as? CachedBody)?.delivered
                ?? (cache == CacheStatus.hit.rawValue ? (exchange.bytesSent, 0) : (0, exchange.bytesSent))
            fields["bytes.cache"] = String(split.cache)
            fields["bytes.upstream"] = String(split.upstream)
        }
        if let upstream = StreamRoute.upstreamName(fromPath: request.path) { fields["upstream"] = upstream }
        if let timing = exchange.responseHeaders["Server-Timing"], let dur = timing.split(separator: "=").last {
            fields["upstream.ms"] = String(dur)
        }
        logger.info("request", fields)
    }
}
