import Foundation
import SluiceGateway
import SluiceTestSupport
import Testing

@Suite("Admin API: cache totals, assets, purges")
struct AdminCacheTests {
    static let chunk = AdminFixture.chunkSize

    @Test("an asset read at two separate places shows exactly the chunks read, field by field")
    func assetAfterTwoRanges() async throws {
        try await AdminFixture.run(files: ["song.mp3": 300_000]) { fixture in
            let bytes = fixture.files["song.mp3"]!
            let head = try await fixture.stream("song.mp3", range: "0-9")
            #expect(head.status == 206)
            #expect(head.body == Array(bytes[0...9]))
            let middle = try await fixture.stream("song.mp3", range: "200000-200009")
            #expect(middle.status == 206)
            #expect(middle.body == Array(bytes[200_000...200_009]))

            let expected: [[Int64]] = [[0, Self.chunk - 1], [3 * Self.chunk, 4 * Self.chunk - 1]]
            var asset: [String: Any] = [:]
            let settled = try await AdminFixture.eventually {
                asset = try await fixture.object("/admin/cache/assets/media/song.mp3")
                return (asset["ranges"] as? [[Int64]]) == expected
            }
            #expect(settled, "ranges: \(asset["ranges"] ?? "none")")
            #expect(
                Set(asset.keys) == [
                    "assetId", "contentLength", "contentType", "etag", "lastModified", "cachedBytes", "ranges",
                    "lastAccess",
                    "fetchedAt", "pinned", "prefetch",
                ])
            #expect(asset["assetId"] as? String == "media://song.mp3")
            #expect(AdminFixture.integer(asset["contentLength"]) == 300_000)
            #expect(asset["contentType"] as? String == head.header("Content-Type"))
            #expect(asset["etag"] as? String == head.header("ETag"))
            #expect(asset["etag"] as? String != nil)
            #expect(asset["lastModified"] as? String == AdminFixture.timestamp(TemporaryDirectory.modificationDate))
            #expect(AdminFixture.integer(asset["cachedBytes"]) == 2 * Self.chunk)
            #expect(asset["pinned"] as? Bool == false)
            #expect(asset["prefetch"] is NSNull)
            for field in ["lastAccess", "fetchedAt"] {
                #expect(AdminFixture.isTimestamp(asset[field]), "\(field): \(asset[field] ?? "none")")
                let date = ISO8601DateFormatter().date(from: asset[field] as? String ?? "") ?? .distantPast
                #expect(abs(date.timeIntervalSinceNow) < 120, "\(field) is now")
            }
        }
    }

    @Test("totals count a known sequence of misses, a hit and a partial hit")
    func totalsAfterKnownSequence() async throws {
        try await AdminFixture.run(files: ["a.bin": 200_000, "b.bin": 200_000]) { fixture in
            let a = fixture.files["a.bin"]!
            let b = fixture.files["b.bin"]!
            let first = try await fixture.stream("a.bin")
            #expect(first.header("X-Cache") == "MISS")
            #expect(first.body == a)
            #expect(
                try await AdminFixture.eventually {
                    AdminFixture.integer(try await fixture.object("/admin/cache/assets/media/a.bin")["cachedBytes"])
                        == 200_000
                })
            let second = try await fixture.stream("a.bin")
            #expect(second.header("X-Cache") == "HIT")
            #expect(second.body == a)
            let cold = try await fixture.stream("b.bin", range: "0-9")
            #expect(cold.header("X-Cache") == "MISS")
            #expect(
                try await AdminFixture.eventually {
                    AdminFixture.integer(try await fixture.object("/admin/cache/assets/media/b.bin")["cachedBytes"])
                        == Self.chunk
                })
            let partial = try await fixture.stream("b.bin", range: "0-99999")
            #expect(partial.header("X-Cache") == "PARTIAL")
            #expect(partial.body == Array(b[0...99_999]))

            var totals: [String: Any] = [:]
            #expect(
                try await AdminFixture.eventually {
                    totals = try await fixture.object("/admin/cache")
                    return totals["partialHits"] as? Int == 1 && totals["inflightFetches"] as? Int == 0
                }, "\(totals)")
            #expect(
                Set(totals.keys) == [
                    "entries", "diskBytes", "maxBytes", "hits", "misses", "partialHits", "bytesSentFromCache",
                    "bytesSentFromUpstream", "bytesFetched", "bytesFetchedByReason", "byteHitRatio",
                    "requestHitRatio", "upstreams", "bytesFromCache", "bytesFromUpstream", "hitRatio", "evictions",
                    "evictionsByReason", "inflightFetches",
                ])
            #expect(totals["entries"] as? Int == 2)
            #expect(totals["hits"] as? Int == 1)
            #expect(totals["misses"] as? Int == 2)
            #expect(totals["partialHits"] as? Int == 1)
            #expect(AdminFixture.integer(totals["maxBytes"]) == AdminFixture.maxSize)
            #expect((AdminFixture.integer(totals["diskBytes"]) ?? 0) >= 200_000 + 2 * Self.chunk)
            // Sent: the first a.bin and b.bin's 10 bytes were fetched for their responses; the second a.bin came
            // from the store; the partial read had chunk 0 in the store and fetched the rest of its 100,000 bytes.
            let sentFromCache = 200_000 + Self.chunk
            let sentFromUpstream = 200_000 + 10 + (100_000 - Self.chunk)
            #expect(AdminFixture.integer(totals["bytesSentFromCache"]) == sentFromCache)
            #expect(AdminFixture.integer(totals["bytesSentFromUpstream"]) == sentFromUpstream)
            // Fetched: whole a.bin once, then chunk 0 of b.bin, then chunk 1 of b.bin, all for readers.
            #expect(AdminFixture.integer(totals["bytesFetched"]) == 200_000 + 2 * Self.chunk)
            #expect(
                totals["bytesFetchedByReason"] as? [String: Int] == [
                    "reader": 200_000 + 2 * Int(Self.chunk), "readahead": 0, "prefetch": 0,
                ])
            let byteRatio = Double(sentFromCache) / Double(sentFromCache + sentFromUpstream)
            #expect(abs((totals["byteHitRatio"] as? Double ?? -1) - byteRatio) < 1e-9)
            #expect(abs((totals["requestHitRatio"] as? Double ?? -1) - 0.25) < 1e-9)
            // The deprecated names carry the new figures.
            #expect(AdminFixture.integer(totals["bytesFromCache"]) == sentFromCache)
            #expect(AdminFixture.integer(totals["bytesFromUpstream"]) == 200_000 + 2 * Self.chunk)
            #expect(abs((totals["hitRatio"] as? Double ?? -1) - byteRatio) < 1e-9)
            let media = try #require((totals["upstreams"] as? [String: Any])?["media"] as? [String: Any])
            #expect(AdminFixture.integer(media["bytesSentFromCache"]) == sentFromCache)
            #expect(AdminFixture.integer(media["bytesSentFromUpstream"]) == sentFromUpstream)
            #expect(media["hits"] as? Int == 1 && media["misses"] as? Int == 2 && media["partialHits"] as? Int == 1)
            #expect(totals["evictions"] as? Int == 0)
            #expect(
                totals["evictionsByReason"] as? [String: Int] == [
                    "size": 0, "age": 0, "corrupt": 0, "version": 0, "purge": 0,
                ])
        }
    }

    @Test("a purged asset is gone; purging everything empties the cache; purges count as evictions")
    func purges() async throws {
        try await AdminFixture.run(files: ["a.bin": 100_000, "b.bin": 1_000, "c.bin": 10]) { fixture in
            for name in ["a.bin", "b.bin", "c.bin"] { _ = try await fixture.stream(name) }
            #expect(
                try await AdminFixture.eventually { try await fixture.object("/admin/cache")["entries"] as? Int == 3 })
            #expect(
                try await AdminFixture.eventually {
                    AdminFixture.integer(try await fixture.object("/admin/cache/assets/media/a.bin")["cachedBytes"])
                        == 100_000
                })

            let purge = try await fixture.admin("DELETE", "/admin/cache/assets/media/a.bin")
            #expect(purge.status == 204)
            #expect(purge.body.isEmpty)
            let gone = try await fixture.admin("GET", "/admin/cache/assets/media/a.bin")
            #expect(gone.status == 404)
            #expect(gone.header("Content-Type") == "application/problem+json")
            #expect(try await fixture.admin("DELETE", "/admin/cache/assets/media/a.bin").status == 404)
            let listed = try await fixture.object("/admin/cache/assets")["assets"] as? [[String: Any]] ?? []
            #expect(Set(listed.compactMap { $0["assetId"] as? String }) == ["media://b.bin", "media://c.bin"])
            let afterOne = try await fixture.object("/admin/cache")
            #expect(afterOne["entries"] as? Int == 2)
            #expect((afterOne["evictionsByReason"] as? [String: Int])?["purge"] == 2, "a.bin had two chunks")

            #expect(try await fixture.admin("DELETE", "/admin/cache").status == 204)
            #expect(try await fixture.object("/admin/cache")["entries"] as? Int == 0)
            #expect(try await fixture.admin("GET", "/admin/cache/assets/media/b.bin").status == 404)
            let page = try await fixture.object("/admin/cache/assets")
            #expect((page["assets"] as? [Any])?.isEmpty == true)
            #expect(page["nextCursor"] is NSNull)

            let again = try await fixture.stream("a.bin")
            #expect(again.header("X-Cache") == "MISS")
            #expect(again.body == fixture.files["a.bin"])
        }
    }

    @Test("the asset list pages with limit and cursor; bad values are 400")
    func paging() async throws {
        let names = (1...5).map { "f\($0).bin" }
        try await AdminFixture.run(files: Dictionary(uniqueKeysWithValues: names.map { ($0, 5_000) })) { fixture in
            for name in names { _ = try await fixture.stream(name) }
            #expect(
                try await AdminFixture.eventually { try await fixture.object("/admin/cache")["entries"] as? Int == 5 })
            var seen: [String] = []
            var cursor: String?
            var pages = 0
            repeat {
                let page = try await fixture.object(
                    "/admin/cache/assets?limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""))
                #expect(Set(page.keys) == ["assets", "nextCursor"])
                let assets = try #require(page["assets"] as? [[String: Any]])
                for asset in assets {
                    #expect(Set(asset.keys) == ["assetId", "contentLength", "cachedBytes", "lastAccess", "pinned"])
                    #expect(AdminFixture.integer(asset["contentLength"]) == 5_000)
                    #expect(AdminFixture.integer(asset["cachedBytes"]) == 5_000)
                    #expect(asset["pinned"] as? Bool == false)
                    #expect(AdminFixture.isTimestamp(asset["lastAccess"]))
                }
                seen += assets.compactMap { $0["assetId"] as? String }
                cursor = page["nextCursor"] as? String
                pages += 1
                #expect(assets.count == (cursor == nil ? 1 : 2))
            } while cursor != nil && pages < 10
            #expect(pages == 3)
            #expect(seen.sorted() == names.map { "media://\($0)" })
            #expect(
                (try await fixture.object("/admin/cache/assets")["assets"] as? [Any])?.count == 5, "default limit 100")

            for query in [
                "limit=0", "limit=1001", "limit=abc", "limit=", "limit=-1", "cursor=xyz",
                "cursor=" + String(repeating: "G", count: 64),
            ] {
                let refused = try await fixture.admin("GET", "/admin/cache/assets?" + query)
                #expect(refused.status == 400, "\(query)")
                #expect(refused.header("Content-Type") == "application/problem+json")
            }
            #expect(try await fixture.admin("GET", "/admin/cache/assets?limit=1000").status == 200)
        }
    }

    @Test("unknown admin paths are 404, wrong methods 405 with Allow, bad asset paths 400")
    func routing() async throws {
        try await AdminFixture.run(files: ["a.bin": 10]) { fixture in
            for target in ["/admin", "/admin/", "/admin/nothing", "/admin/cache/nothing"] {
                #expect(try await fixture.admin("GET", target).status == 404, "\(target)")
            }
            let cases: [(String, String, String)] = [
                ("PUT", "/admin/cache", "DELETE, GET"),
                ("POST", "/metrics", "GET"),
                ("DELETE", "/admin/upstreams", "GET"),
                ("PUT", "/admin/cache/assets/media/a.bin", "DELETE, GET"),
                ("GET", "/admin/cache/assets/media/a.bin/prefetch", "POST"),
                ("GET", "/admin/cache/verify", "POST"),
            ]
            for (method, target, allow) in cases {
                let answer = try await fixture.admin(method, target)
                #expect(answer.status == 405, "\(method) \(target)")
                #expect(answer.header("Allow") == allow, "\(method) \(target)")
            }
            for target in [
                "/admin/cache/assets/media/%2e%2e/x", "/admin/cache/assets/media/a%00b", "/admin/cache/assets/1x/a.bin",
                "/admin/cache/assets/media/a%2Fb", "/admin/cache/assets/media",
            ] {
                let answer = try await fixture.admin("GET", target)
                #expect(answer.status == 400, "\(target)")
                #expect(answer.header("Content-Type") == "application/problem+json")
            }
            #expect(try await fixture.admin("GET", "/admin/cache/assets/media/missing.bin").status == 404)
        }
    }

    @Test("verify reads back every chunk and reports none bad on a healthy cache")
    func verify() async throws {
        try await AdminFixture.run(files: ["a.bin": 150_000]) { fixture in
            _ = try await fixture.stream("a.bin")
            #expect(
                try await AdminFixture.eventually {
                    AdminFixture.integer(try await fixture.object("/admin/cache/assets/media/a.bin")["cachedBytes"])
                        == 150_000
                })
            // Verification reads committed chunks; written chunks are committed within the commit interval.
            var report: AdminVerifyReport?
            #expect(
                try await AdminFixture.eventually {
                    let answer = try await fixture.admin("POST", "/admin/cache/verify")
                    guard answer.status == 200 else { return false }
                    report = try AdminJSON.decode(AdminVerifyReport.self, from: answer.body)
                    return report?.chunksChecked == 3
                })
            #expect(
                report
                    == AdminVerifyReport(assetsChecked: 1, chunksChecked: 3, bytesChecked: 150_000, bad: [], dropped: 0)
            )
        }
    }
}
