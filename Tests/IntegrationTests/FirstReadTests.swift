import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// Issue 31, first byte in one round trip: a first read of an asset the cache has never seen sends its ranged GET
/// at once and takes the content info from the answer's head, instead of a HEAD or PROPFIND first.
@Suite struct FirstReadTests {
    static let size = 3 << 20 + 12_345
    static let chunk: Int64 = 1 << 20

    /// The fault origin as an `http` and as a `webdav` upstream (it answers PROPFIND too), with small chunks.
    private static func run(
        _ body: (_ gateway: TestGateway, _ origin: Peer, _ data: [UInt8], _ upstream: String) async throws -> Void
    ) async throws {
        let content = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: content, count: size)
        try content.write("b.bin", data)
        let origin = try await Peer.faultOrigin(root: content.path)
        defer { origin.stop() }
        let cache = try TemporaryDirectory()
        let upstreams = [UpstreamConfig.http("web", baseURL: origin.baseURL), .webdav("dav", baseURL: origin.baseURL)]
        let settings = { (config: inout SluiceConfig) in
            config.cache.directory = cache.file("cache")
            config.cache.chunkSize = chunk
        }
        try await TestGateway.run(upstreams: upstreams, configure: settings) { gateway in
            for upstream in ["web", "dav"] {
                try await origin.resetStats()
                try await body(gateway, origin, data, upstream)
            }
        }
    }

    /// What reached the origin, as `METHOD path range`, once it has settled.
    private static func requests(_ origin: Peer) async throws -> [String] {
        try await CacheFixture.settledStats(origin).recent.map { "\($0.method) \($0.path) \($0.range ?? "-")" }
    }

    @Test func aColdRangeCostsOneRequestAndItsSecondReadNone() async throws {
        try await Self.run { gateway, origin, data, upstream in
            let first = 1_500_000
            let url = gateway.streamURL(upstream, "a.bin")
            let cold = try await TestHTTP.get(url, headers: ["Range": "bytes=\(first)-\(first + 99_999)"])
            #expect(cold.status == 206)
            #expect(cold.header("Content-Range") == "bytes \(first)-\(first + 99_999)/\(Self.size)")
            #expect(cold.header("X-Cache") == "MISS")
            #expect(cold.header("ETag") != nil && cold.header("Last-Modified") != nil)
            #expect(cold.header("Server-Timing")?.hasPrefix("upstream;dur=") == true)
            #expect(cold.body == Array(data[first..<first + 100_000]))
            // The chunk holding the range, asked for at once: no HEAD or PROPFIND first.
            #expect(try await Self.requests(origin) == ["GET /a.bin bytes=\(Self.chunk)-\(2 * Self.chunk - 1)"])

            let again = try await TestHTTP.get(url, headers: ["Range": "bytes=\(first)-\(first + 99_999)"])
            #expect(again.header("X-Cache") == "HIT")
            #expect(again.body == Array(data[first..<first + 100_000]))
            #expect(try await Self.requests(origin).count == 1, "\(upstream): the second read asked the origin")
        }
    }

    @Test func anOpenRangeAndAWholeGetAskForTheirFirstChunkAtOnce() async throws {
        try await Self.run { gateway, origin, data, upstream in
            let probe = try await TestHTTP.get(
                gateway.streamURL(upstream, "a.bin"), headers: ["Range": "bytes=2200000-"])
            #expect(probe.status == 206)
            #expect(probe.body == Array(data[2_200_000...]))
            let whole = try await TestHTTP.get(gateway.streamURL(upstream, "b.bin"))
            #expect(whole.status == 200 && whole.body == data)
            let seen = try await Self.requests(origin)
            #expect(seen.first == "GET /a.bin bytes=\(2 * Self.chunk)-\(3 * Self.chunk - 1)", "\(seen)")
            #expect(seen.contains("GET /b.bin bytes=0-\(Self.chunk - 1)"), "\(seen)")
            #expect(!seen.contains { $0.hasPrefix("HEAD") || $0.hasPrefix("PROPFIND") }, "\(seen)")
        }
    }

    @Test func readsWhoseFirstByteNeedsTheLengthAskForContentInfoFirst() async throws {
        try await Self.run { gateway, origin, data, upstream in
            let url = gateway.streamURL(upstream, "a.bin")
            let tail = try await TestHTTP.get(url, headers: ["Range": "bytes=-1000"])
            #expect(tail.status == 206 && tail.body == Array(data[(Self.size - 1000)...]))
            let describe = upstream == "dav" ? "PROPFIND" : "HEAD"
            #expect(try await Self.requests(origin).first == "\(describe) /a.bin -")

            // Past the end: the first read's GET is refused 416, and the answer still names the length.
            let beyond = try await TestHTTP.get(
                gateway.streamURL(upstream, "b.bin"), headers: ["Range": "bytes=\(Self.size + 10)-"])
            #expect(beyond.status == 416)
            #expect(beyond.header("Content-Range") == "bytes */\(Self.size)")
        }
    }

    @Test func aHeadAndAConditionalFirstReadAskForContentInfo() async throws {
        try await Self.run { gateway, origin, _, upstream in
            let head = try await TestHTTP.request("HEAD", gateway.streamURL(upstream, "a.bin"))
            #expect(head.status == 200 && head.header("Content-Length") == "\(Self.size)")
            let conditional = try await TestHTTP.get(
                gateway.streamURL(upstream, "b.bin"), headers: ["If-None-Match": "\"anything\""])
            #expect(conditional.status == 200)
            let seen = try await Self.requests(origin)
            let describe = upstream == "dav" ? "PROPFIND" : "HEAD"
            #expect(seen.filter { $0.hasPrefix(describe) }.count == 2, "\(seen)")
        }
    }

    /// The validators a first read took from its GET are the ones a revalidation later finds (rclone's and Apache's
    /// PROPFIND): the chunks it cached stay, and the next read is a hit.
    @Test(arguments: [OriginKind.webdavRclone, .webdavApache, .http])
    func aRevalidationAfterAFirstReadKeepsItsChunks(kind: OriginKind) async throws {
        let content = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: content, count: Self.size)
        try FileManager.default.createDirectory(atPath: content.file("folder"), withIntermediateDirectories: true)
        let origin = try await kind.start(serving: content.path)
        let cache = try TemporaryDirectory()
        let settings = { (config: inout SluiceConfig) in
            config.cache.directory = cache.file("cache")
            config.cache.revalidateAfter = .milliseconds(1)
        }
        try await TestGateway.run(upstreams: [origin.upstream], configure: settings) { gateway in
            let url = gateway.streamURL("up", "a.bin")
            let cold = try await TestHTTP.get(url, headers: ["Range": "bytes=100-70099"])
            #expect(cold.status == 206 && cold.header("X-Cache") == "MISS")
            #expect(cold.body == Array(data[100..<70_100]))
            try await Task.sleep(for: .milliseconds(5))
            let again = try await TestHTTP.get(url, headers: ["Range": "bytes=100-70099"])
            #expect(again.header("X-Cache") == "HIT", "\(kind): the revalidation saw another version")
            #expect(again.header("ETag") == cold.header("ETag"))
            #expect(again.body == Array(data[100..<70_100]))
            // A folder is not a file, even where its GET answers a listing.
            let folder = try await TestHTTP.get(gateway.streamURL("up", "folder"), headers: ["Range": "bytes=0-"])
            #expect([404, 502].contains(folder.status), "\(kind): \(folder.status) \(folder.text.prefix(120))")
            #expect(folder.header("X-Cache") == nil || folder.status != 206)
        }
        withExtendedLifetime(origin) {}
    }
}
