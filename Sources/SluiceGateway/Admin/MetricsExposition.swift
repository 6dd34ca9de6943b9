import SluiceCache
import SluiceUpstream

/// The gateway's metrics in Prometheus text format: request outcomes, byte sources, per-upstream traffic, latency
/// and errors, cache state, token refreshes.
enum MetricsExposition {
    /// Renders every metric family; per-upstream families list each configured upstream (zero when idle) and any
    /// other upstream that has samples.
    static func render(
        snapshot: GatewayMetrics.Snapshot, stats: CacheStats, inflightFetches: Int, upstreams configured: [String],
        tokens: [String: TokenStatus] = [:], loads: [String: RequestLoad] = [:], droppedLogLines: Int = 0
    ) -> String {
        var out = PrometheusText()
        traffic(snapshot, into: &out)
        let names = Set(configured).union(snapshot.fetched.keys).union(snapshot.traffic.keys)
            .union(snapshot.firstByte.keys).union(snapshot.upstreamErrors.keys).sorted()
        upstreams(names, snapshot, into: &out)
        cache(stats, inflightFetches: inflightFetches, into: &out)
        requests(loads.sorted { $0.key < $1.key }, into: &out)
        out.family(
            "sluice_client_limited_total", type: "counter",
            help: "Requests answered 429 by a per-client limit (rate: server.limits.requestsPerSecond and burst; "
                + "newAssets: server.limits.newAssetsPerMinute).")
        for limit in ClientLimit.allCases {
            out.sample("sluice_client_limited_total", [("limit", limit.rawValue)], Int64(snapshot.limited[limit] ?? 0))
        }
        let renewing = tokens.sorted { $0.key < $1.key }
        out.family(
            "sluice_token_refreshes_total", type: "counter",
            help: "OAuth2 token refreshes per upstream (no samples without an OAuth2 upstream).")
        for (name, status) in renewing {
            out.sample("sluice_token_refreshes_total", [("upstream", name)], Int64(status.refreshes))
        }
        out.family(
            "sluice_token_refresh_failures_total", type: "counter",
            help: "Failed OAuth2 token refreshes per upstream (no samples without an OAuth2 upstream).")
        for (name, status) in renewing {
            out.sample("sluice_token_refresh_failures_total", [("upstream", name)], Int64(status.failures))
        }
        out.family(
            "sluice_log_lines_dropped_total", type: "counter",
            help: "Log lines dropped because standard error could not keep up (the log buffer holds 4 MiB).")
        out.sample("sluice_log_lines_dropped_total", [], Int64(droppedLogLines))
        return out.text
    }

    /// Responses by outcome, bytes sent by source, the two hit ratios (docs/api.md, "Byte accounting").
    private static func traffic(_ snapshot: GatewayMetrics.Snapshot, into out: inout PrometheusText) {
        out.family(
            "sluice_requests_total", type: "counter",
            help: "Responses by HTTP status and X-Cache outcome (none: not a stream response).")
        let responses = snapshot.responses.sorted { ($0.key.status, $0.key.cache) < ($1.key.status, $1.key.cache) }
        for (key, count) in responses {
            let cache = key.cache == "-" ? "none" : key.cache
            out.sample("sluice_requests_total", [("status", String(key.status)), ("cache", cache)], Int64(count))
        }
        let total = AdminTraffic(sent: snapshot.totalTraffic, fetched: snapshot.totalFetchedByReason)
        out.family(
            "sluice_cache_byte_hit_ratio", type: "gauge",
            help: "Body bytes sent from the cache / body bytes sent; 0 before any byte.")
        out.sample("sluice_cache_byte_hit_ratio", [], total.byteHitRatio)
        let hits = snapshot.hits
        out.family(
            "sluice_cache_request_hit_ratio", type: "gauge",
            help: "HIT responses / stream responses with an X-Cache outcome; 0 before any.")
        out.sample(
            "sluice_cache_request_hit_ratio", [],
            AdminTraffic.ratio(Int64(hits), of: Int64(hits + snapshot.misses + snapshot.partialHits)))
        out.family(
            "sluice_cache_bytes_total", type: "counter",
            help: "Deprecated (until 0.3): sluice_bytes_sent_total{source=\"cache\"} and the sum of "
                + "sluice_upstream_bytes_fetched_total.")
        out.sample("sluice_cache_bytes_total", [("source", "cache")], total.bytesSentFromCache)
        out.sample("sluice_cache_bytes_total", [("source", "upstream")], total.bytesFetched)
    }

    /// Bytes, first-byte latency histogram and errors of each upstream in `names`.
    private static func upstreams(
        _ names: [String], _ snapshot: GatewayMetrics.Snapshot, into out: inout PrometheusText
    ) {
        let traffic = names.map { name in
            (
                name,
                AdminTraffic(
                    sent: snapshot.traffic[name] ?? UpstreamTraffic.Snapshot(), fetched: snapshot.fetched[name] ?? [:])
            )
        }
        out.family(
            "sluice_bytes_sent_total", type: "counter",
            help: "Body bytes sent to clients per upstream, by source: in the store when the response began (cache) "
                + "or fetched for it (upstream).")
        for (name, counts) in traffic {
            out.sample("sluice_bytes_sent_total", [("upstream", name), ("source", "cache")], counts.bytesSentFromCache)
            out.sample(
                "sluice_bytes_sent_total", [("upstream", name), ("source", "upstream")], counts.bytesSentFromUpstream)
        }
        out.family(
            "sluice_upstream_bytes_fetched_total", type: "counter",
            help: "Bytes received from each upstream, by reason (reader, readahead, prefetch).")
        for (name, counts) in traffic {
            for reason in FetchReason.allCases {
                out.sample(
                    "sluice_upstream_bytes_fetched_total", [("upstream", name), ("reason", reason.rawValue)],
                    counts.bytesFetchedByReason[reason.rawValue] ?? 0)
            }
        }
        out.family(
            "sluice_upstream_responses_total", type: "counter",
            help: "Stream responses per upstream by X-Cache outcome.")
        for (name, counts) in traffic {
            for (outcome, count) in [("HIT", counts.hits), ("MISS", counts.misses), ("PARTIAL", counts.partialHits)] {
                out.sample("sluice_upstream_responses_total", [("upstream", name), ("cache", outcome)], Int64(count))
            }
        }
        out.family(
            "sluice_upstream_redirects_total", type: "counter",
            help: "Stream requests answered with a redirect to the provider's download link (redirect delivery).")
        for (name, counts) in traffic {
            out.sample("sluice_upstream_redirects_total", [("upstream", name)], Int64(counts.redirects))
        }
        out.family(
            "sluice_upstream_byte_hit_ratio", type: "gauge",
            help: "Per upstream: body bytes sent from the cache / body bytes sent; 0 before any byte.")
        for (name, counts) in traffic {
            out.sample("sluice_upstream_byte_hit_ratio", [("upstream", name)], counts.byteHitRatio)
        }
        out.family(
            "sluice_upstream_request_hit_ratio", type: "gauge",
            help: "Per upstream: HIT responses / stream responses; 0 before any.")
        for (name, counts) in traffic {
            out.sample("sluice_upstream_request_hit_ratio", [("upstream", name)], counts.requestHitRatio)
        }
        out.family(
            "sluice_upstream_bytes_total", type: "counter",
            help: "Deprecated (until 0.3): the sum of sluice_upstream_bytes_fetched_total per upstream.")
        for (name, counts) in traffic {
            out.sample("sluice_upstream_bytes_total", [("upstream", name)], counts.bytesFetched)
        }
        let latency = "sluice_upstream_first_byte_seconds"
        out.family(
            latency, type: "histogram", help: "Time from asking an upstream for bytes to its first byte, per upstream.")
        for name in names {
            let histogram = snapshot.firstByte[name] ?? GatewayMetrics.Histogram()
            // The histogram's counts are already cumulative: each observation counts in every bucket it fits.
            for (bound, count) in zip(GatewayMetrics.Histogram.bounds, histogram.counts) {
                let le = PrometheusText.format(bound)
                out.sample(latency + "_bucket", [("upstream", name), ("le", le)], Int64(count))
            }
            out.sample(latency + "_bucket", [("upstream", name), ("le", "+Inf")], Int64(histogram.count))
            out.sample(latency + "_sum", [("upstream", name)], histogram.sum)
            out.sample(latency + "_count", [("upstream", name)], Int64(histogram.count))
        }
        out.family(
            "sluice_upstream_errors_total", type: "counter",
            help: "Failed upstream requests by upstream and error kind.")
        for name in names {
            for (kind, count) in (snapshot.upstreamErrors[name] ?? [:]).sorted(by: { $0.key < $1.key }) {
                out.sample("sluice_upstream_errors_total", [("upstream", name), ("kind", kind)], Int64(count))
            }
        }
    }

    /// Requests in flight and waiting for a slot, per upstream reached over HTTP.
    private static func requests(_ loads: [(key: String, value: RequestLoad)], into out: inout PrometheusText) {
        out.family(
            "sluice_upstream_requests_in_flight", type: "gauge",
            help: "Requests in flight per upstream (at most its maxConcurrentRequests).")
        for (name, load) in loads {
            out.sample("sluice_upstream_requests_in_flight", [("upstream", name)], Int64(load.active))
        }
        out.family(
            "sluice_upstream_requests_waiting", type: "gauge",
            help: "Requests waiting for a free slot of their upstream's maxConcurrentRequests.")
        for (name, load) in loads {
            out.sample("sluice_upstream_requests_waiting", [("upstream", name)], Int64(load.waiting))
        }
    }

    /// Fetches running, evictions by reason, disk use, size limit, entries.
    private static func cache(_ stats: CacheStats, inflightFetches: Int, into out: inout PrometheusText) {
        out.family("sluice_inflight_fetches", type: "gauge", help: "Upstream fetches running now.")
        out.sample("sluice_inflight_fetches", [], Int64(inflightFetches))
        out.family(
            "sluice_cache_evictions_total", type: "counter",
            help: "Chunks removed from the cache since start, by reason.")
        for reason in EvictionReason.allCases {
            out.sample(
                "sluice_cache_evictions_total", [("reason", reason.rawValue)], Int64(stats.evictions[reason] ?? 0))
        }
        out.family("sluice_cache_disk_bytes", type: "gauge", help: "Allocated disk bytes of the cache directory.")
        out.sample("sluice_cache_disk_bytes", [], stats.diskBytes)
        out.family("sluice_cache_max_bytes", type: "gauge", help: "Configured cache.maxSize in bytes.")
        out.sample("sluice_cache_max_bytes", [], stats.maxBytes)
        out.family("sluice_cache_entries", type: "gauge", help: "Assets in the cache index.")
        out.sample("sluice_cache_entries", [], Int64(stats.entries))
    }
}
