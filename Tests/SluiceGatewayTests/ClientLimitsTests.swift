import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// Per-client limits through a running gateway. Clients are told apart by `X-Forwarded-For` from a trusted proxy
/// (the test itself, on 127.0.0.1), which also shows that field used exactly then.
@Suite("Client limits")
struct ClientLimitsTests {
    static let proxy = ["127.0.0.1/32"]

    static func limited(
        rate: Double = 1_000, burst: Int = 1_000, newAssets: Int = 0, trusted: [String] = proxy
    ) -> (inout SluiceConfig) -> Void {
        { config in
            config.server.limits.requestsPerSecond = rate
            config.server.limits.burst = burst
            config.server.limits.newAssetsPerMinute = newAssets
            config.server.trustedProxies = trusted.map { IPNetwork($0)! }
        }
    }

    static func get(_ fixture: AdminFixture, _ name: String, from client: String) async throws -> HTTPResult {
        try await TestHTTP.get(
            fixture.gateway.streamURL("media", name), headers: ["X-Forwarded-For": client])
    }

    static func limitedCount(_ fixture: AdminFixture, _ limit: String) async throws -> Int? {
        let metrics = try await fixture.admin("GET", "/metrics").text
        let prefix = "sluice_client_limited_total{limit=\"\(limit)\"} "
        return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
    }

    @Test("a client over its rate gets 429 with Retry-After, on a miss and on a hit; another client is unaffected")
    func rate() async throws {
        // One request in 1000 s, bursts of 4: the bucket does not refill while the test runs.
        try await AdminFixture.run(files: ["a.bin": 100_000], configure: Self.limited(rate: 0.001, burst: 4)) {
            fixture in
            let bytes = fixture.files["a.bin"]!
            // Another client fills the cache, so that the four requests below come quickly, as hits.
            #expect(try await Self.get(fixture, "a.bin", from: "192.0.2.9").header("X-Cache") == "MISS")
            #expect(
                try await AdminFixture.eventually {
                    AdminFixture.integer(try await fixture.object("/admin/cache/assets/media/a.bin")["cachedBytes"])
                        == 100_000
                })
            for _ in 0..<4 {
                let hit = try await Self.get(fixture, "a.bin", from: "192.0.2.1")
                #expect(hit.status == 200 && hit.header("X-Cache") == "HIT" && hit.body == bytes)
            }
            let refused = try await Self.get(fixture, "a.bin", from: "192.0.2.1")
            #expect(refused.status == 429)
            #expect(refused.header("Content-Type") == Problem.mediaType)
            #expect(refused.header("Retry-After").flatMap(Int.init).map { (900...1_000).contains($0) } == true)
            #expect(refused.header("X-Cache") == nil && !refused.body.starts(with: bytes.prefix(16)))
            let other = try await Self.get(fixture, "a.bin", from: "192.0.2.2")
            #expect(other.status == 200 && other.body == bytes)
            // A request the cache cannot answer at once is refused as well, on the async path.
            #expect(try await Self.get(fixture, "nope.bin", from: "192.0.2.1").status == 429)
            #expect(try await Self.limitedCount(fixture, "rate") == 2)
            #expect(try await Self.limitedCount(fixture, "newAssets") == 0)
        }
    }

    @Test("without trustedProxies X-Forwarded-For is ignored: every spelling is one client, the peer")
    func forwardedForIgnoredUntrusted() async throws {
        let untrusted = Self.limited(rate: 0.001, burst: 3, trusted: [])
        try await AdminFixture.run(files: ["a.bin": 1_000], configure: untrusted) {
            (fixture: AdminFixture) async throws in
            for client in ["192.0.2.1", "192.0.2.2", "192.0.2.3"] {
                #expect(try await Self.get(fixture, "a.bin", from: client).status == 200)
            }
            #expect(try await Self.get(fixture, "a.bin", from: "192.0.2.4").status == 429)
        }
    }

    @Test("the access log names the client a trusted proxy forwarded for")
    func accessLogClient() async throws {
        let info: (inout SluiceConfig) -> Void = { config in
            Self.limited(trusted: ["127.0.0.1", "10.0.0.0/8"])(&config)
            config.logging.level = .info
        }
        try await AdminFixture.run(files: ["a.bin": 1_000], configure: info) { fixture in
            // The client wrote a forged hop first; the proxies trusted wrote the rest.
            let result = try await TestHTTP.get(
                fixture.gateway.streamURL("media", "a.bin"),
                headers: ["X-Forwarded-For": "203.0.113.66, 198.51.100.7, 10.1.2.3", "X-Request-Id": "xff-log"])
            #expect(result.status == 200)
            #expect(
                await AdminFixture.eventually { !fixture.gateway.log.lines(containing: "xff-log").isEmpty })
            let line = fixture.gateway.log.lines(containing: "xff-log").first ?? ""
            #expect(line.contains("client=198.51.100.7"), "\(line)")
        }
    }

    @Test("a client may start fills for so many new assets a minute; hits and repeats never count")
    func newAssets() async throws {
        let names = ["a.bin", "b.bin", "c.bin", "d.bin", "e.bin", "f.bin"]
        let files = Dictionary(uniqueKeysWithValues: names.map { ($0, 10_000) })
        try await AdminFixture.run(files: files, configure: Self.limited(newAssets: 2)) { fixture in
            for name in ["a.bin", "b.bin", "a.bin"] {
                #expect(try await Self.get(fixture, name, from: "192.0.2.1").status == 200, "\(name)")
            }
            let refused = try await Self.get(fixture, "c.bin", from: "192.0.2.1")
            #expect(
                refused.status == 429
                    && refused.header("Retry-After").flatMap(Int.init).map { (1...60).contains($0) } == true)
            for name in ["a.bin", "b.bin"] {
                #expect(
                    try await AdminFixture.eventually {
                        AdminFixture.integer(
                            try await fixture.object("/admin/cache/assets/media/\(name)")["cachedBytes"])
                            == 10_000
                    })
            }
            // Another client reads the two cached assets as hits, then starts two new ones: allowed, then no more.
            for name in ["a.bin", "b.bin"] {
                let hit = try await Self.get(fixture, name, from: "192.0.2.2")
                #expect(hit.status == 200 && hit.header("X-Cache") == "HIT")
            }
            for name in ["d.bin", "e.bin"] {
                let miss = try await Self.get(fixture, name, from: "192.0.2.2")
                #expect(miss.status == 200 && miss.body == fixture.files[name], "\(name)")
            }
            #expect(try await Self.get(fixture, "f.bin", from: "192.0.2.2").status == 429)
            #expect(try await Self.limitedCount(fixture, "newAssets") == 2)
        }
    }
}
