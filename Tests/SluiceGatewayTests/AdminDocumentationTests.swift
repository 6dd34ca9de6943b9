import Foundation
import SluiceTestSupport
import Testing

/// What the admin API and `/metrics` answer is described where operators look: every `/admin/cache` field in
/// `openapi.yaml`, every metric family in `docs/api.md`.
@Suite("Admin API: documentation")
struct AdminDocumentationTests {
    @Test("every /admin/cache field is in openapi.yaml and every /metrics family in docs/api.md")
    func everythingServedIsDocumented() async throws {
        let openapi = try String(contentsOfFile: Repository.root + "/openapi.yaml", encoding: .utf8)
        let api = try String(contentsOfFile: Repository.root + "/docs/api.md", encoding: .utf8)
        let totalsSchema = try #require(Self.schema("CacheTotals", in: openapi))
        let trafficSchema = try #require(Self.schema("UpstreamTraffic", in: openapi))
        try await AdminFixture.run(files: ["a.bin": 1_000]) { fixture in
            _ = try await fixture.stream("a.bin")
            let totals = try await fixture.object("/admin/cache")
            for key in totals.keys {
                #expect(totalsSchema.contains("\n        \(key):"), "/admin/cache field \(key) is not in openapi.yaml")
                #expect(api.contains("`\(key)`"), "/admin/cache field \(key) is not in docs/api.md")
            }
            let media = try #require((totals["upstreams"] as? [String: Any])?["media"] as? [String: Any])
            for key in media.keys {
                #expect(trafficSchema.contains("\n        \(key):"), "upstreams.*.\(key) is not in openapi.yaml")
            }
            let metrics = try await fixture.admin("GET", "/metrics").text
            let families = metrics.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.map {
                String($0.split(separator: " ")[2])
            }
            #expect(families.count > 10)
            for family in families {
                #expect(api.contains("`\(family)"), "metric family \(family) is not in docs/api.md")
            }
        }
    }

    /// The text of the component schema `name` in `openapi` (up to the next schema at the same indentation).
    static func schema(_ name: String, in openapi: String) -> String? {
        guard let start = openapi.range(of: "\n    \(name):\n") else { return nil }
        let rest = openapi[start.upperBound...]
        let end = rest.firstMatch(of: /\n    [A-Za-z]+:\n/)?.range.lowerBound ?? rest.endIndex
        return String(rest[..<end])
    }
}
