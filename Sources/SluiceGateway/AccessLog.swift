import SluiceCore
import SluiceHTTP

/// Writes one structured line per finished request: request id, method, path, upstream, range, status,
/// bytes sent (for a stream response also split by source, docs/api.md "Byte accounting"), duration, cache outcome
/// and upstream first-byte time. The query string is never logged (it may carry a URL signature), nor is any request
/// header other than Range; the client is the one ``ClientResolver`` names (a trusted proxy's `X-Forwarded-For`).
struct AccessLog: Sendable {
    /// Where lines go.
    let logger: Logger
    /// Counts responses by status and cache outcome.
    let metrics: GatewayMetrics
    /// Who a request came from.
    var clients = ClientResolver(trusted: [])

    /// The request header fields a line reads: the exchange of a cache hit carries only these.
    var headerFields: [String] { clients.trusted.isEmpty ? ["Range"] : ["Range", "X-Forwarded-For"] }

    /// Logs `exchange`.
    func record(_ exchange: HTTPExchange) {
        let cache = exchange.responseHeaders["X-Cache"]
        metrics.record(status: exchange.status, cache: cache)
        guard logger.isEnabled(.info) else { return }
        let request = exchange.request
        // A streamed body knows its split; any other body of a stream response is a hit from the store.
        let split: (cache: Int64, upstream: Int64)? = cache.map { cache in
            (exchange.bodySource as? CachedBody)?.delivered
                ?? (cache == CacheStatus.hit.rawValue ? (exchange.bytesSent, 0) : (0, exchange.bytesSent))
        }
        // In key order, as the logger writes them.
        var fields: [(key: String, value: String)] = []
        fields.reserveCapacity(14)
        if !exchange.completed { fields.append(("aborted", "true")) }
        fields.append(("bytes", String(exchange.bytesSent)))
        if let split {
            fields.append(("bytes.cache", String(split.cache)))
            fields.append(("bytes.upstream", String(split.upstream)))
        }
        if let cache { fields.append(("cache.status", cache)) }
        fields.append(("client", clients.text(peer: request.client) { request.headers["X-Forwarded-For"] }))
        fields.append(("duration.ms", (exchange.finishedAt - exchange.startedAt).milliseconds))
        fields.append(("method", request.method))
        fields.append(("path", request.path))
        if let range = request.headers["Range"] { fields.append(("range", String(range.prefix(100)))) }
        fields.append(("request.id", exchange.responseHeaders["X-Request-Id"] ?? "-"))
        fields.append(("status", String(exchange.status)))
        if let upstream = StreamRoute.upstreamName(fromPath: request.path) { fields.append(("upstream", upstream)) }
        if let timing = exchange.responseHeaders["Server-Timing"], let dur = timing.split(separator: "=").last {
            fields.append(("upstream.ms", String(dur)))
        }
        logger.log(.info, "request", sortedFields: fields)
    }
}
