import Foundation
import SluiceGateway
import SluiceTestSupport
import Testing

@Suite("Admin API: prefetch")
struct AdminPrefetchTests {
    static let chunk = AdminFixture.chunkSize

    /// Polls the asset until its prefetch is no longer running; returns the asset document.
    static func settledAsset(_ fixture: AdminFixture, _ name: String) async throws -> [String: Any] {
        var asset: [String: Any] = [:]
        let settled = try await AdminFixture.eventually(timeout: .seconds(30)) {
            asset = try await fixture.object("/admin/cache/assets/media/\(name)")
            return (asset["prefetch"] as? [String: Any])?["state"] as? String != "running"
        }
        try #require(settled, "prefetch of \(name) still running: \(asset)")
        return asset
    }

    /// The cached ranges the admin API lists for `name`.
    static func cachedRanges(_ fixture: AdminFixture, _ name: String) async throws -> [[Int64]] {
        let ranges = try await fixture.object("/admin/cache/assets/media/\(name)")["ranges"] as? [[Int]] ?? []
        return ranges.map { $0.map(Int64.init) }
    }

    @Test("a pinned whole-asset prefetch plays fully from cache, byte-exact, after the upstream file is gone")
    func wholeAssetThenUpstreamGone() async throws {
        let size = 1_000_000
        try await AdminFixture.run(files: ["film.mp4": size]) { fixture in
            let bytes = fixture.files["film.mp4"]!
            let accepted = try await fixture.admin(
                "POST", "/admin/cache/assets/media/film.mp4/prefetch", body: Array(#"{"pin": true}"#.utf8))
            #expect(accepted.status == 202)
            #expect(accepted.header("Location") == "/admin/cache/assets/media/film.mp4")
            let answer = try AdminJSON.decode(AdminPrefetchAccepted.self, from: accepted.body)
            #expect(answer.assetId == "media://film.mp4")
            #expect(answer.asset == "/admin/cache/assets/media/film.mp4")
            #expect(answer.prefetch.bytesTotal == Int64(size))
            #expect(answer.prefetch.error == nil)

            let asset = try await Self.settledAsset(fixture, "film.mp4")
            let prefetch = try #require(asset["prefetch"] as? [String: Any])
            #expect(Set(prefetch.keys) == ["state", "bytesDone", "bytesTotal", "error", "startedAt", "finishedAt"])
            #expect(prefetch["state"] as? String == "done")
            #expect(AdminFixture.integer(prefetch["bytesDone"]) == Int64(size))
            #expect(AdminFixture.integer(prefetch["bytesTotal"]) == Int64(size))
            #expect(prefetch["error"] is NSNull)
            #expect(AdminFixture.isTimestamp(prefetch["startedAt"]))
            #expect(AdminFixture.isTimestamp(prefetch["finishedAt"]))
            #expect(asset["pinned"] as? Bool == true)
            #expect(asset["ranges"] as? [[Int64]] == [[0, Int64(size) - 1]])
            #expect(AdminFixture.integer(asset["cachedBytes"]) == Int64(size))
            let totals = try await fixture.object("/admin/cache")
            #expect(AdminFixture.integer(totals["bytesFromUpstream"]) == Int64(size))
            #expect(AdminFixture.integer(totals["bytesFromCache"]) == 0, "a prefetch sends no byte to a client")

            try FileManager.default.removeItem(atPath: fixture.media.file("film.mp4"))
            let whole = try await fixture.stream("film.mp4")
            #expect(whole.status == 200)
            #expect(whole.header("X-Cache") == "HIT")
            #expect(whole.body.count == size)
            #expect(whole.body == bytes)
            let range = try await fixture.stream("film.mp4", range: "123456-876543")
            #expect(range.status == 206)
            #expect(range.header("X-Cache") == "HIT")
            #expect(range.body == Array(bytes[123_456...876_543]))
            let after = try await fixture.object("/admin/cache")
            #expect(AdminFixture.integer(after["bytesFromUpstream"]) == Int64(size), "nothing was fetched again")
        }
    }

    @Test("a prefetch of some ranges caches their chunks only; already cached bytes count as done")
    func someRanges() async throws {
        try await AdminFixture.run(files: ["song.mp3": 300_000]) { fixture in
            _ = try await fixture.stream("song.mp3", range: "0-9")
            #expect(
                try await AdminFixture.eventually {
                    AdminFixture.integer(try await fixture.object("/admin/cache/assets/media/song.mp3")["cachedBytes"])
                        == Self.chunk
                })
            let body = #"{"ranges": [[0, 9], [200000, 200009], [299990, 999999]]}"#
            let accepted = try await fixture.admin(
                "POST", "/admin/cache/assets/media/song.mp3/prefetch", body: Array(body.utf8))
            #expect(accepted.status == 202, "\(accepted.text)")
            let answer = try AdminJSON.decode(AdminPrefetchAccepted.self, from: accepted.body)
            #expect(answer.prefetch.bytesTotal == 30, "the last range is cut at the end of the object")
            #expect(answer.prefetch.bytesDone >= 10)

            let asset = try await Self.settledAsset(fixture, "song.mp3")
            let prefetch = try #require(asset["prefetch"] as? [String: Any])
            #expect(prefetch["state"] as? String == "done")
            #expect(AdminFixture.integer(prefetch["bytesDone"]) == 30)
            // Chunk 0 (read before), chunk 3 (200000) and chunk 4 (299990, the last) joined with it, once the fill's
            // writer has stored the last chunk (the prefetch is done when its bytes arrived, not when they are stored).
            #expect(
                try await AdminFixture.eventually {
                    try await Self.cachedRanges(fixture, "song.mp3") == [
                        [0, Self.chunk - 1], [3 * Self.chunk, 299_999],
                    ]
                })
            #expect(asset["pinned"] as? Bool == false, "no pin asked")
        }
    }

    @Test("bad prefetch requests are refused before anything is fetched")
    func refused() async throws {
        try await AdminFixture.run(files: ["a.bin": 1_000]) { fixture in
            let bad: [(String, String, Int)] = [
                ("a.bin", #"{"ranges": [[10, 5]]}"#, 400),
                ("a.bin", #"{"ranges": [[1000, 2000]]}"#, 400),
                ("a.bin", #"{"ranges": [[-1, 5]]}"#, 400),
                ("a.bin", #"{"ranges": [[1, 2, 3]]}"#, 400),
                ("a.bin", #"{"ranges": []}"#, 400),
                ("a.bin", #"{"ranges": "0-5"}"#, 400),
                ("a.bin", #"{"pin": "yes"}"#, 400),
                ("a.bin", #"{"pin": 1}"#, 400),
                ("a.bin", #"{"pinned": true}"#, 400),
                ("a.bin", #"[0, 5]"#, 400),
                ("a.bin", "not json", 400),
                ("missing.bin", "", 404),
            ]
            for (name, body, status) in bad {
                let answer = try await fixture.admin(
                    "POST", "/admin/cache/assets/media/\(name)/prefetch", body: body.isEmpty ? nil : Array(body.utf8))
                #expect(answer.status == status, "\(body): \(answer.text)")
                #expect(answer.header("Content-Type") == "application/problem+json")
            }
            let unknown = try await fixture.admin("POST", "/admin/cache/assets/other/a.bin/prefetch")
            #expect(unknown.status == 404)
            #expect(try await fixture.object("/admin/cache/assets/media/a.bin")["prefetch"] is NSNull)
            let totals = try await fixture.object("/admin/cache")
            #expect(AdminFixture.integer(totals["bytesFromUpstream"]) == 0)
            let errors = (try await fixture.object("/admin/upstreams")["upstreams"] as? [[String: Any]])?.first?[
                "errors"]
            #expect(errors as? [String: Int] == ["not_found": 1], "the missing object counts as an upstream error")
        }
    }

    @Test("an empty object prefetches as done at once")
    func emptyObject() async throws {
        try await AdminFixture.run(files: ["empty.bin": 0]) { fixture in
            let accepted = try await fixture.admin("POST", "/admin/cache/assets/media/empty.bin/prefetch")
            #expect(accepted.status == 202)
            let answer = try AdminJSON.decode(AdminPrefetchAccepted.self, from: accepted.body)
            #expect(answer.prefetch.state == .done)
            #expect(answer.prefetch.bytesTotal == 0)
        }
    }
}
