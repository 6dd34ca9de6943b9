import SluiceCache
import SluiceHTTP

extension AdminHandler {
    /// `GET /metrics`.
    func metricsResponse() throws(CacheError) -> HTTPResponse {
        let text = MetricsExposition.render(
            snapshot: metrics.snapshot, stats: try store.stats(), inflightFetches: coordinator.inflightFetches,
            upstreams: upstreamConfigs.keys.sorted())
        return HTTPResponse(
            status: 200, headers: ["Content-Type": PrometheusText.contentType], body: .bytes(Array(text.utf8)))
    }
}

/// The gateway's metrics in Prometheus text format.
enum MetricsExposition {
    /// Renders every metric family; per-upstream families list each configured upstream (zero when idle) and any
    /// other upstream that has samples.
    static func render(
        snapshot: GatewayMetrics.Snapshot, stats: CacheStats, inflightFetches: Int, upstreams configured: [String]
    ) -> String {
        var out = PrometheusText()
        out.family("sluice_requests_total", type: "counter", help: "Responses by HTTP status and X-Cache outcome (none: not a stream response).")
        for (key, count) in snapshot.responses.sorted(by: { ($0.key.status, $0.key.cache) < ($1.key.status, $1.key.cache) }) {
            out.sample("sluice_requests_total", [("status", String(key.status)), ("cache", key.cache == "-" ? "none" : key.cache)], Int64(count))
        }

        let fromUpstream = snapshot.totalBytesFromUpstream
        out.family("sluice_cache_bytes_total", type: "counter", help: "Body bytes by source: sent from the cache, or received from upstreams.")
        out.sample("sluice_cache_bytes_total", [("source", "cache")], snapshot.bytesFromCache)
        out.sample("sluice_cache_bytes_total", [("source", "upstream")], fromUpstream)

        out.family("sluice_cache_byte_hit_ratio", type: "gauge", help: "Bytes from cache / (bytes from cache + bytes from upstreams); 0 before any byte.")
        out.sample("sluice_cache_byte_hit_ratio", [], AdminCacheTotals.ratio(snapshot.bytesFromCache, of: snapshot.bytesFromCache + fromUpstream))

        let names = Set(configured).union(snapshot.bytesFromUpstream.keys).union(snapshot.firstByte.keys)
            .union(snapshot.upstreamErrors.keys).sorted()
        out.family("sluice_upstream_bytes_total", type: "counter", help: "Bytes received from each upstream.")
        for name in names {
            out.sample("sluice_upstream_bytes_total", [("upstream", name)], snapshot.bytesFromUpstream[name] ?? 0)
        }

        out.family("sluice_upstream_first_byte_seconds", type: "histogram", help: "Time from asking an upstream for bytes to its first byte, per upstream.")
        for name in names {
            let histogram = snapshot.firstByte[name] ?? GatewayMetrics.Histogram()
            for (bound, count) in zip(GatewayMetrics.Histogram.bounds, histogram.counts) {
                out.sample("sluice_upstream_first_byte_seconds_bucket", [("upstream", name), ("le", PrometheusText.format(bound))], Int64(count))
            }
            out.sample("sluice_upstream_first_byte_seconds_bucket", [("upstream", name), ("le", "+Inf")], Int64(histogram.count))
            out.sample("sluice_upstream_first_byte_seconds_sum", [("upstream", name)], histogram.sum)
            out.sample("sluice_upstream_first_byte_seconds_count", [("upstream", name)], Int64(histogram.count))
        }

        out.family("sluice_upstream_errors_total", type: "counter", help: "Failed upstream requests by upstream and error kind.")
        for name in names {
            for (kind, count) in (snapshot.upstreamErrors[name] ?? [:]).sorted(by: { $0.key < $1.key }) {
                out.sample("sluice_upstream_errors_total", [("upstream", name), ("kind", kind)], Int64(count))
            }
        }

        out.family("sluice_inflight_fetches", type: "gauge", help: "Upstream fetches running now.")
        out.sample("sluice_inflight_fetches", [], Int64(inflightFetches))

        out.family("sluice_cache_evictions_total", type: "counter", help: "Chunks removed from the cache since start, by reason.")
        for reason in EvictionReason.allCases {
            out.sample("sluice_cache_evictions_total", [("reason", reason.rawValue)], Int64(stats.evictions[reason] ?? 0))
        }

        out.family("sluice_cache_disk_bytes", type: "gauge", help: "Allocated disk bytes of the cache directory.")
        out.sample("sluice_cache_disk_bytes", [], stats.diskBytes)
        out.family("sluice_cache_max_bytes", type: "gauge", help: "Configured cache.maxSize in bytes.")
        out.sample("sluice_cache_max_bytes", [], stats.maxBytes)
        out.family("sluice_cache_entries", type: "gauge", help: "Assets in the cache index.")
        out.sample("sluice_cache_entries", [], Int64(stats.entries))

        out.family("sluice_token_refreshes_total", type: "counter", help: "OAuth2 token refreshes per upstream (no samples until an OAuth2 upstream is configured).")
        out.family("sluice_token_refresh_failures_total", type: "counter", help: "Failed OAuth2 token refreshes per upstream (no samples until an OAuth2 upstream is configured).")
        return out.text
    }
}
