import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// Scripted request sequences against an HTTP origin that counts what it sends, each with the exact byte accounting
/// `/admin/cache` must show: bytes sent by source add up to what the test received, bytes fetched by reason add up
/// to what the origin sent.
@Suite("Byte accounting")
struct ByteAccountingTests {
    static let chunk: Int64 = 64 << 10
    static let token = "accounting-token"

    /// A gateway over a fault origin serving `files` (name → size) as upstream `web`, with 64 KiB chunks.
    struct Rig {
        let gateway: TestGateway
        let origin: Peer
        let content: TemporaryDirectory
        let files: [String: [UInt8]]

        static func run(
            files sizes: [String: Int], readahead: Int64 = 1, revalidateAfter: Duration = .seconds(3_600),
            _ body: (Rig) async throws -> Void
        ) async throws {
            let content = try TemporaryDirectory()
            var files: [String: [UInt8]] = [:]
            for (name, size) in sizes { files[name] = try await RandomData.file(name, in: content, count: size) }
            let origin = try await Peer.faultOrigin(root: content.path)
            let upstream = UpstreamConfig.http("web", baseURL: origin.baseURL)
            try await TestGateway.run(upstreams: [upstream]) { config in
                config.server.adminToken = Secret(ByteAccountingTests.token)
                config.cache.chunkSize = ByteAccountingTests.chunk
                config.cache.readahead = readahead
                config.cache.revalidateAfter = revalidateAfter
            } _: { gateway in
                try await body(Rig(gateway: gateway, origin: origin, content: content, files: files))
            }
        }

        /// A stream GET of `name` with `range` (`first-last`), checked byte for byte against the file.
        func get(_ name: String, range: ClosedRange<Int>? = nil) async throws -> HTTPResult {
            let headers = range.map { ["Range": "bytes=\($0.lowerBound)-\($0.upperBound)"] } ?? [:]
            let result = try await TestHTTP.get(gateway.streamURL("web", name), headers: headers)
            let data = files[name]!
            let expected = range.map { Array(data[$0]) } ?? data
            #expect(result.body == expected, "\(name) \(range.map { "\($0)" } ?? "whole"): \(result.status)")
            return result
        }

        /// `/admin/cache` once no fill is running.
        func totals() async throws -> [String: Any] {
            var totals: [String: Any] = [:]
            let settled = try await AdminFixture.eventually {
                totals = try await admin("GET", "/admin/cache")
                return totals["inflightFetches"] as? Int == 0
            }
            #expect(settled, "fills still running: \(totals)")
            return totals
        }

        func admin(_ method: String, _ target: String, body: [UInt8]? = nil) async throws -> [String: Any] {
            let result = try await TestHTTP.request(
                method, gateway.url(target), headers: ["Authorization": "Bearer \(ByteAccountingTests.token)"],
                body: body)
            return (try? JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any]) ?? [:]
        }
    }

    /// The accounting fields of `totals` as integers.
    static func figures(_ totals: [String: Any]) -> (cache: Int64, upstream: Int64, fetched: [String: Int64]) {
        let fetched = (totals["bytesFetchedByReason"] as? [String: Any] ?? [:]).mapValues {
            AdminFixture.integer($0) ?? -1
        }
        return (
            AdminFixture.integer(totals["bytesSentFromCache"]) ?? -1,
            AdminFixture.integer(totals["bytesSentFromUpstream"]) ?? -1, fetched
        )
    }

    @Test("bytes a fill fetches beyond its reader's range count as readahead; a later reader of them is a HIT")
    func readahead() async throws {
        let size = 8 * Int(Self.chunk)
        try await Rig.run(files: ["a.bin": size], readahead: 3 * Self.chunk) { rig in
            let first = try await rig.get("a.bin", range: 0...2 * Int(Self.chunk) - 1)
            #expect(first.header("X-Cache") == "MISS")
            var totals = try await rig.totals()
            var figures = Self.figures(totals)
            #expect(figures.upstream == 2 * Self.chunk && figures.cache == 0, "\(figures)")
            #expect(figures.fetched["reader"] == 2 * Self.chunk, "\(figures.fetched)")
            // The fill runs up to 3 chunks ahead while its reader reads, and stops at the chunk boundary after the
            // reader leaves: how far it got depends on the scheduling, but every byte is counted once.
            let ahead = figures.fetched["readahead"] ?? -1
            let fetched = AdminFixture.integer(totals["bytesFetched"]) ?? -1
            #expect(ahead >= 0 && ahead <= 4 * Self.chunk, "\(figures.fetched)")
            #expect(fetched == 2 * Self.chunk + ahead)
            let origin = Int64(try await rig.origin.stats().bytes)
            #expect(fetched <= origin, "received \(fetched), the origin sent \(origin)")

            let second = try await rig.get("a.bin", range: 2 * Int(Self.chunk)...3 * Int(Self.chunk) - 1)
            totals = try await rig.totals()
            figures = Self.figures(totals)
            if ahead >= Self.chunk {
                #expect(second.header("X-Cache") == "HIT")
                #expect(figures.cache == Self.chunk && figures.upstream == 2 * Self.chunk, "\(figures)")
            } else {
                #expect(second.header("X-Cache") == "MISS")
                #expect(figures.cache == 0 && figures.upstream == 3 * Self.chunk, "\(figures)")
            }
            print("byte accounting: readahead fetched \(ahead) bytes ahead of a 2-chunk reader")
        }
    }

    @Test("access lines split the bytes of a PARTIAL as /admin/cache does; a HIT's all from cache, a MISS's not")
    func accessLog() async throws {
        try await Rig.run(files: ["a.bin": 3 * Int(Self.chunk)]) { rig in
            let requests: [(id: String, range: ClosedRange<Int>, cache: Int64, upstream: Int64)] = [
                ("acct-miss", 0...9, 0, 10),
                ("acct-partial", 0...99_999, Self.chunk, 100_000 - Self.chunk),
                ("acct-hit", 5...65_000, 64_996, 0),
            ]
            for request in requests {
                let result = try await TestHTTP.get(
                    rig.gateway.streamURL("web", "a.bin"),
                    headers: [
                        "Range": "bytes=\(request.range.lowerBound)-\(request.range.upperBound)",
                        "X-Request-Id": request.id,
                    ])
                #expect(result.body == Array(rig.files["a.bin"]![request.range]), "\(request.id)")
                _ = try await rig.totals()
                let line = try #require(
                    await Poll.value(within: .seconds(5), every: .milliseconds(20)) {
                        rig.gateway.log.lines(containing: request.id).last { $0.contains("status=206") }
                    }, "no access line for \(request.id)")
                #expect(line.contains("bytes=\(request.range.count) "), "\(line)")
                #expect(line.contains("bytes.cache=\(request.cache) "), "\(line)")
                #expect(line.contains("bytes.upstream=\(request.upstream)"), "\(line)")
            }
            let figures = Self.figures(try await rig.totals())
            #expect(figures.cache == requests.map(\.cache).reduce(0, +), "\(figures)")
            #expect(figures.upstream == requests.map(\.upstream).reduce(0, +), "\(figures)")
        }
    }

    @Test("16 readers of one cold fill: one fetch, and every byte sent counted once")
    func coalescedReaders() async throws {
        let size = 16 * Int(Self.chunk)
        try await Rig.run(files: ["a.bin": size]) { rig in
            let statuses = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<16 { group.addTask { try await rig.get("a.bin").header("X-Cache") } }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(statuses.count == 16)
            let totals = try await rig.totals()
            let figures = Self.figures(totals)
            // Each reader's bytes count once, from the cache or the upstream as the store held them at its start.
            #expect(figures.cache + figures.upstream == 16 * Int64(size), "\(figures)")
            #expect(figures.upstream >= Int64(size), "the first reader's bytes were all fetched for it: \(figures)")
            let hits = statuses.filter { $0 == "HIT" }.count
            #expect(figures.cache >= Int64(hits) * Int64(size), "\(hits) hits: \(figures)")
            #expect(figures.fetched == ["reader": Int64(size), "readahead": 0, "prefetch": 0], "\(figures.fetched)")
            let origin = try await rig.origin.stats()
            #expect(origin.bytes == size, "the origin sent \(origin.bytes) bytes: the readers did not share a fetch")
        }
    }

    @Test("a prefetch fetches for itself and sends nothing; the read after it is a HIT")
    func prefetch() async throws {
        let size = 5 * Int(Self.chunk) + 123
        try await Rig.run(files: ["a.bin": size]) { rig in
            let accepted = try await rig.admin("POST", "/admin/cache/assets/web/a.bin/prefetch")
            #expect(accepted["assetId"] as? String == "web://a.bin", "\(accepted)")
            #expect(
                try await AdminFixture.eventually {
                    let asset = try await rig.admin("GET", "/admin/cache/assets/web/a.bin")
                    return (asset["prefetch"] as? [String: Any])?["state"] as? String == "done"
                })
            var figures = Self.figures(try await rig.totals())
            #expect(figures.cache == 0 && figures.upstream == 0, "\(figures)")
            #expect(figures.fetched == ["reader": 0, "readahead": 0, "prefetch": Int64(size)], "\(figures.fetched)")
            #expect(try await rig.origin.stats().bytes == size)

            #expect(try await rig.get("a.bin").header("X-Cache") == "HIT")
            figures = Self.figures(try await rig.totals())
            #expect(figures.cache == Int64(size) && figures.upstream == 0, "\(figures)")
        }
    }

    @Test("a revalidation of an unchanged object fetches no body; of a replaced one, the new bytes for the reader")
    func revalidation() async throws {
        let size = 3 * Int(Self.chunk)
        try await Rig.run(files: ["a.bin": size], revalidateAfter: .milliseconds(1)) { rig in
            #expect(try await rig.get("a.bin").header("X-Cache") == "MISS")
            _ = try await rig.totals()
            let originBefore = try await rig.origin.stats()
            // Content info older than 1 ms is asked for again: a HEAD, then the bytes come from the store.
            #expect(try await rig.get("a.bin").header("X-Cache") == "HIT")
            var figures = Self.figures(try await rig.totals())
            #expect(figures.cache == Int64(size) && figures.upstream == Int64(size), "\(figures)")
            #expect(figures.fetched == ["reader": Int64(size), "readahead": 0, "prefetch": 0], "\(figures.fetched)")
            let originAfter = try await rig.origin.stats()
            #expect(originAfter.requests > originBefore.requests, "no revalidation request reached the origin")
            #expect(originAfter.bytes == originBefore.bytes)

            // A new version (another length, so another validator): fetched again, for the reader.
            let replaced = try await RandomData.file("a.bin", in: rig.content, count: size + 1)
            let result = try await TestHTTP.get(rig.gateway.streamURL("web", "a.bin"))
            #expect(result.header("X-Cache") == "MISS")
            #expect(result.body == replaced)
            figures = Self.figures(try await rig.totals())
            #expect(figures.upstream == 2 * Int64(size) + 1, "\(figures)")
            #expect(figures.fetched["reader"] == 2 * Int64(size) + 1, "\(figures.fetched)")
            #expect(
                AdminFixture.integer((try await rig.totals())["bytesFetched"])
                    == Int64(try await rig.origin.stats().bytes))
        }
    }
}
