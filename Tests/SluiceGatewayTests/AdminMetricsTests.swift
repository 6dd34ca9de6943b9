import Foundation
import SluiceTestSupport
import Testing

@Suite("Admin API: /metrics")
struct AdminMetricsTests {
    /// Every family the exposition declares, with its type.
    static let families: [String: String] = [
        "sluice_requests_total": "counter", "sluice_cache_bytes_total": "counter",
        "sluice_upstream_bytes_total": "counter", "sluice_cache_byte_hit_ratio": "gauge",
        "sluice_upstream_first_byte_seconds": "histogram", "sluice_upstream_errors_total": "counter",
        "sluice_inflight_fetches": "gauge", "sluice_cache_evictions_total": "counter",
        "sluice_cache_disk_bytes": "gauge",
        "sluice_cache_max_bytes": "gauge", "sluice_cache_entries": "gauge", "sluice_token_refreshes_total": "counter",
        "sluice_token_refresh_failures_total": "counter", "sluice_cache_request_hit_ratio": "gauge",
        "sluice_bytes_sent_total": "counter", "sluice_upstream_bytes_fetched_total": "counter",
        "sluice_upstream_responses_total": "counter", "sluice_upstream_redirects_total": "counter",
        "sluice_upstream_byte_hit_ratio": "gauge",
        "sluice_upstream_request_hit_ratio": "gauge", "sluice_upstream_requests_in_flight": "gauge",
        "sluice_upstream_requests_waiting": "gauge", "sluice_log_lines_dropped_total": "counter",
        "sluice_client_limited_total": "counter",
    ]

    @Test("the Prometheus text parses and its samples match a known sequence of requests")
    func exposition() async throws {
        try await AdminFixture.run(files: ["a.bin": 100_000]) { fixture in
            _ = try await fixture.stream("a.bin")
            #expect(
                try await AdminFixture.eventually {
                    AdminFixture.integer(try await fixture.object("/admin/cache/assets/media/a.bin")["cachedBytes"])
                        == 100_000
                })
            _ = try await fixture.stream("a.bin", range: "0-99")
            #expect(try await fixture.stream("nope.bin").status == 404)
            #expect(try await AdminFixture.eventually { try await fixture.object("/admin/cache")["hits"] as? Int == 1 })

            let answer = try await fixture.admin("GET", "/metrics")
            #expect(answer.status == 200)
            #expect(answer.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            let lines = answer.text.split(separator: "\n").map(String.init)
            #expect(answer.text.hasSuffix("\n"))

            var declared: [String: String] = [:]
            var helped: Set<String> = []
            var samples: [String: String] = [:]
            for line in lines {
                if line.hasPrefix("# HELP ") {
                    helped.insert(String(line.dropFirst(7).prefix { $0 != " " }))
                } else if line.hasPrefix("# TYPE ") {
                    let parts = line.split(separator: " ")
                    try #require(parts.count == 4, "\(line)")
                    declared[String(parts[2])] = String(parts[3])
                } else {
                    let match = try #require(
                        line.wholeMatch(
                            of: /([a-z_]+)(\{[a-z_]+="(?:[^"\\]|\\.)*"(?:,[a-z_]+="(?:[^"\\]|\\.)*")*\})? (\S+)/),
                        "not a sample line: \(line)")
                    let name = String(match.1)
                    let family = Self.families.keys.first {
                        name == $0 || name.hasPrefix($0 + "_") && declared[$0] == "histogram"
                    }
                    #expect(family.map { declared[$0] != nil } == true, "\(name) before or without its TYPE")
                    #expect(Double(match.3) != nil || match.3 == "+Inf", "\(line)")
                    samples[name + (match.2.map(String.init) ?? "")] = String(match.3)
                }
            }
            #expect(declared == Self.families)
            #expect(helped == Set(Self.families.keys))

            #expect(samples[#"sluice_requests_total{status="200",cache="MISS"}"#] == "1")
            #expect(samples[#"sluice_requests_total{status="206",cache="HIT"}"#] == "1")
            #expect(samples[#"sluice_requests_total{status="404",cache="none"}"#] == "1")
            // The miss sent 100,000 fetched bytes, the hit 100 from the store.
            #expect(samples[#"sluice_bytes_sent_total{upstream="media",source="cache"}"#] == "100")
            #expect(samples[#"sluice_bytes_sent_total{upstream="media",source="upstream"}"#] == "100000")
            #expect(samples[#"sluice_upstream_bytes_fetched_total{upstream="media",reason="reader"}"#] == "100000")
            #expect(samples[#"sluice_upstream_bytes_fetched_total{upstream="media",reason="readahead"}"#] == "0")
            #expect(samples[#"sluice_upstream_bytes_fetched_total{upstream="media",reason="prefetch"}"#] == "0")
            #expect(samples[#"sluice_upstream_responses_total{upstream="media",cache="HIT"}"#] == "1")
            #expect(samples[#"sluice_upstream_responses_total{upstream="media",cache="MISS"}"#] == "1")
            let ratio = try #require(samples[#"sluice_cache_byte_hit_ratio"#].flatMap(Double.init))
            #expect(abs(ratio - 100.0 / 100_100) < 1e-9)
            #expect(
                samples[#"sluice_upstream_byte_hit_ratio{upstream="media"}"#] == samples["sluice_cache_byte_hit_ratio"])
            #expect(samples[#"sluice_cache_request_hit_ratio"#] == "0.5")
            #expect(samples[#"sluice_upstream_request_hit_ratio{upstream="media"}"#] == "0.5")
            // Deprecated families, one release: the same figures under the old names.
            #expect(samples[#"sluice_cache_bytes_total{source="cache"}"#] == "100")
            #expect(samples[#"sluice_cache_bytes_total{source="upstream"}"#] == "100000")
            #expect(samples[#"sluice_upstream_bytes_total{upstream="media"}"#] == "100000")
            #expect(samples[#"sluice_upstream_first_byte_seconds_count{upstream="media"}"#] == "1")
            #expect(samples[#"sluice_upstream_first_byte_seconds_bucket{upstream="media",le="+Inf"}"#] == "1")
            #expect(samples[#"sluice_upstream_first_byte_seconds_bucket{upstream="media",le="10"}"#] == "1")
            #expect(samples[#"sluice_upstream_errors_total{upstream="media",kind="not_found"}"#] == "1")
            #expect(samples[#"sluice_cache_entries"#] == "1")
            #expect(samples[#"sluice_cache_max_bytes"#] == String(AdminFixture.maxSize))
            #expect(samples[#"sluice_inflight_fetches"#] == "0")
            #expect(samples[#"sluice_cache_evictions_total{reason="size"}"#] == "0")
            #expect(samples[#"sluice_cache_evictions_total{reason="purge"}"#] == "0")
            #expect(samples.keys.contains { $0.hasPrefix("sluice_token_refresh") } == false, "no OAuth2 upstream yet")
            let buckets = lines.filter { $0.hasPrefix("sluice_upstream_first_byte_seconds_bucket{") }
            let counts = buckets.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
            #expect(counts.count == 12)
            #expect(counts == counts.sorted(), "buckets are cumulative")
        }
    }
}
