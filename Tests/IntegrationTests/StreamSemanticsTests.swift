import SluiceCore
import SluiceTestSupport
import Testing

/// HEAD, 416, malformed Range, If-Range and If-None-Match through each upstream kind (RFC 9110 §13, §14, §15.5.17).
@Suite struct StreamSemanticsTests {
    /// A 1 MiB object served by `kind`, and a gateway in front of it.
    private func withGateway(
        _ kind: OriginKind, _ body: (String, [UInt8]) async throws -> Void
    ) async throws {
        let media = try await MediaFixture(length: 1 << 20)
        let origin = try await kind.start(serving: media.folder.path)
        try await TestGateway.run(upstreams: [origin.upstream]) { gateway in
            try await body(gateway.streamURL("up", media.path), media.data)
        }
        withExtendedLifetime(origin) {}
    }

    @Test(arguments: OriginKind.allCases)
    func headAnswersTheWholeRepresentationWithoutABody(kind: OriginKind) async throws {
        try await withGateway(kind) { url, data in
            for headers in [[:], ["Range": "bytes=0-9"]] {
                let head = try await TestHTTP.head(url, headers: headers)
                #expect(head.status == 200, "HEAD with \(headers)")
                #expect(head.header("Content-Length") == String(data.count))
                #expect(head.header("Accept-Ranges") == "bytes")
                #expect(head.header("Content-Range") == nil)
                #expect(head.header("X-Cache") != nil)
                #expect(head.body.isEmpty)
            }
            let get = try await TestHTTP.get(url)
            let head = try await TestHTTP.head(url)
            #expect(head.header("ETag") == get.header("ETag"))
            #expect(head.header("Last-Modified") == get.header("Last-Modified"))
            #expect(head.header("Content-Type") == get.header("Content-Type"))
        }
    }

    @Test(arguments: OriginKind.allCases)
    func unsatisfiableRangeAnswers416WithTheLength(kind: OriginKind) async throws {
        try await withGateway(kind) { url, data in
            for range in ["bytes=\(data.count)-", "bytes=\(data.count + 10)-\(data.count + 20)", "bytes=-0"] {
                let result = try await TestHTTP.get(url, headers: ["Range": range])
                #expect(result.status == 416, "\(range)")
                #expect(result.header("Content-Range") == "bytes */\(data.count)", "\(range)")
            }
        }
    }

    @Test(arguments: OriginKind.allCases)
    func malformedRangeIsIgnored(kind: OriginKind) async throws {
        try await withGateway(kind) { url, data in
            for range in ["bytes=abc", "bytes=5-2", "items=0-9", "bytes=--1", "bytes 0-9", "bytes=0-9x", "bytes=1-2-3"]
            {
                let result = try await TestHTTP.get(url, headers: ["Range": range])
                #expect(result.status == 200, "\(range)")
                #expect(result.header("Content-Range") == nil, "\(range)")
                #expect(result.body.matches(data[...]), "\(range)")
            }
        }
    }

    /// README: overlapping or adjacent ranges are merged into one 206; ranges that stay apart are answered with
    /// the whole object (200), never `multipart/byteranges`.
    @Test(arguments: OriginKind.allCases)
    func severalRangesAreMergedOrAnsweredWhole(kind: OriginKind) async throws {
        try await withGateway(kind) { url, data in
            let merged = [("bytes=0-9,10-19", 0, 19), ("bytes=100-199,150-299", 100, 299)]
            for (range, first, last) in merged {
                let result = try await TestHTTP.get(url, headers: ["Range": range])
                #expect(result.status == 206, "\(range)")
                #expect(result.header("Content-Range") == "bytes \(first)-\(last)/\(data.count)", "\(range)")
                #expect(result.body.matches(data[first...last]), "\(range)")
            }
            for range in ["bytes=0-9,100-109", "bytes=0-0,-1"] {
                let result = try await TestHTTP.get(url, headers: ["Range": range])
                #expect(result.status == 200, "\(range)")
                #expect(result.header("Content-Type")?.contains("multipart") != true, "\(range)")
                #expect(result.body.matches(data[...]), "\(range)")
            }
        }
    }

    @Test(arguments: OriginKind.allCases)
    func ifRangeMatchingGivesTheRangeAndNotMatchingTheWhole(kind: OriginKind) async throws {
        try await withGateway(kind) { url, data in
            let etag = try #require(try await TestHTTP.head(url).header("ETag"))
            #expect(!etag.hasPrefix("W/"), "If-Range needs a strong validator (RFC 9110 §13.1.5)")
            let matching = try await TestHTTP.get(url, headers: ["Range": "bytes=100-199", "If-Range": etag])
            #expect(matching.status == 206)
            #expect(matching.header("Content-Range") == "bytes 100-199/\(data.count)")
            #expect(matching.body.matches(data[100...199]))
            let stale = try await TestHTTP.get(
                url, headers: ["Range": "bytes=100-199", "If-Range": "\"not-the-etag\""])
            #expect(stale.status == 200)
            #expect(stale.header("Content-Range") == nil)
            #expect(stale.body.matches(data[...]))
        }
    }

    @Test(arguments: OriginKind.allCases)
    func ifNoneMatchAnswers304(kind: OriginKind) async throws {
        try await withGateway(kind) { url, data in
            let etag = try #require(try await TestHTTP.head(url).header("ETag"))
            for condition in [etag, "\"other\", \(etag)", "*"] {
                let result = try await TestHTTP.get(url, headers: ["If-None-Match": condition])
                #expect(result.status == 304, "\(condition)")
                #expect(result.header("ETag") == etag)
                #expect(result.body.isEmpty)
            }
            let other = try await TestHTTP.get(url, headers: ["If-None-Match": "\"other\""])
            #expect(other.status == 200)
            #expect(other.body.matches(data[...]))
        }
    }

    @Test(arguments: OriginKind.allCases)
    func emptyObjectIs200AndAnyRangeOfIt416(kind: OriginKind) async throws {
        let content = try TemporaryDirectory()
        try content.write("empty.bin", [])
        let origin = try await kind.start(serving: content.path)
        try await TestGateway.run(upstreams: [origin.upstream]) { gateway in
            let url = gateway.streamURL("up", "empty.bin")
            let whole = try await TestHTTP.get(url)
            #expect(whole.status == 200)
            #expect(whole.header("Content-Length") == "0")
            #expect(whole.body.isEmpty)
            // RFC 9110 §14.1.1: no range of a zero-length representation is satisfiable.
            for range in ["bytes=0-", "bytes=0-0", "bytes=-1"] {
                let result = try await TestHTTP.get(url, headers: ["Range": range])
                #expect(result.status == 416, "\(range)")
                #expect(result.header("Content-Range") == "bytes */0", "\(range)")
            }
        }
        withExtendedLifetime(origin) {}
    }

    /// Names needing percent-encoding reach each upstream intact (docs/api.md: segments percent-encoded on the way
    /// to the upstream).
    @Test(arguments: OriginKind.allCases)
    func namesThatNeedEncodingAreServed(kind: OriginKind) async throws {
        let content = try TemporaryDirectory()
        let names = [
            "Album One/01 Intro.mp3", "Ünïcödé/файл.bin", "odd/a#b?c&d=e;f.bin", "odd/100% sure+plus.bin",
            "odd/'quote' (1) [2] {3}.bin",
        ]
        var files: [String: [UInt8]] = [:]
        for name in names {
            files[name] = try await RandomData.file(name, in: content, count: 1000 + name.utf8.count)
        }
        let origin = try await kind.start(serving: content.path)
        try await TestGateway.run(upstreams: [origin.upstream]) { gateway in
            for name in names {
                let result = try await TestHTTP.get(gateway.streamURL("up", name))
                #expect(result.status == 200, "\(kind) \(name)")
                #expect(result.body == files[name], "\(kind) \(name)")
            }
        }
        withExtendedLifetime(origin) {}
    }
}
