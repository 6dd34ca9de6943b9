import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceUpstream

/// The `http` adapter against nginx and the scriptable fault origin.
@Suite struct HTTPUpstreamTests {
    @Test func nginxMetadataAndRandomRanges() async throws {
        let content = try TemporaryDirectory()
        let data = try await RandomData.file("videos/a b.mp4", in: content, count: 8 << 20)
        let peer = try await Peer.nginx(serving: content.path)
        let client = try CurlClient()
        let upstream = try makeUpstream(TestFixtures.config(.http, baseURL: peer.baseURL), client: client)

        let info = try await upstream.contentInfo(for: TestFixtures.path("videos/a b.mp4"))
        #expect(info.length == Int64(data.count))
        #expect(info.contentType == "video/mp4")
        #expect(info.lastModified == TemporaryDirectory.modificationDate)
        #expect(info.etag?.hasPrefix("\"") == true)
        #expect(await TestFixtures.contentInfoError(upstream, "videos/none.mp4") == .notFound)

        let failures = await TestFixtures.checkRanges(upstream, "videos/a b.mp4", data: data)
        #expect(failures.isEmpty, "\(failures)")

        let whole = await TestFixtures.fetch(upstream, "videos/a b.mp4")
        #expect(whole?.error == nil)
        #expect(whole?.bytes.matches(data[...]) == true)
        let past = await TestFixtures.fetch(
            upstream, "videos/a b.mp4", range: ByteRange(first: Int64(data.count), last: Int64(data.count) + 5))
        #expect(past?.error == .rangeNotSatisfiable(length: Int64(data.count)))

        // nginx refuses PROPFIND with 405: the webdav adapter falls back to HEAD.
        let dav = try makeUpstream(TestFixtures.config(.webdav, baseURL: peer.baseURL), client: client)
        #expect(try await dav.contentInfo(for: TestFixtures.path("videos/a b.mp4")) == info)
        await client.shutdown()
    }

    @Test func contentInfoFallsBackToRangedGetWhenHeadFails() async throws {
        let origin = try await ServedOrigin.start(["clip.mp4": RandomData.bytes(5000)])
        let client = try CurlClient()
        let upstream = try makeUpstream(TestFixtures.config(.http, baseURL: origin.baseURL), client: client)
        let expected = try await upstream.contentInfo(for: TestFixtures.path("clip.mp4"))
        #expect(expected.length == 5000)
        #expect(expected.contentType == "video/mp4")
        #expect(expected.etag?.hasPrefix("\"") == true)
        #expect(expected.lastModified == TemporaryDirectory.modificationDate)
        try await origin.peer.resetStats()
        // `no-head/` answers HEAD with 405, `head-without-length/` with a 200 that has no Content-Length.
        for path in ["no-head/clip.mp4", "head-without-length/clip.mp4"] {
            #expect(try await upstream.contentInfo(for: TestFixtures.path(path)) == expected, "\(path)")
        }
        let methods = try await origin.requests().map { "\($0.method) \($0.range ?? "")" }
        #expect(methods == ["HEAD ", "GET bytes=0-0", "HEAD ", "GET bytes=0-0"])
        await client.shutdown()
    }

    @Test func faultsMapToTypedErrors() async throws {
        let origin = try await ServedOrigin.start(["file": RandomData.bytes(1 << 20)])
        let client = try CurlClient()
        let upstream = try makeUpstream(TestFixtures.config(.http, baseURL: origin.baseURL), client: client)
        let range = ByteRange(first: 100, last: 199_999)

        let cases: [(path: String, error: UpstreamError)] = [
            ("status/404/file", .notFound), ("status/410/file", .notFound),
            ("status/401/file", .unauthorized(status: 401)), ("status/403/file", .unauthorized(status: 403)),
            ("status/500/file", .badStatus(500)), ("status/412/file", .changed),
            ("short/file", .protocolViolation("body shorter than its Content-Length")),
            ("wrong-range/file", .protocolViolation("Content-Range 101-200000 does not answer 100-199999")),
        ]
        for item in cases {
            let outcome = await TestFixtures.fetch(upstream, item.path, range: range)
            #expect(outcome?.error == item.error, "\(item.path)")
            #expect(outcome?.lateEvents == 0)
        }
        #expect(await TestFixtures.contentInfoError(upstream, "status/404/file") == .notFound)
        #expect(await TestFixtures.contentInfoError(upstream, "status/500/file") == .badStatus(500))
        await client.shutdown()
    }

    @Test func ignoredRangeDeliversWholeObjectAndIfRangeDetectsChange() async throws {
        let data = RandomData.bytes(1 << 20)
        let origin = try await ServedOrigin.start(["file": data])
        let client = try CurlClient()
        let upstream = try makeUpstream(TestFixtures.config(.http, baseURL: origin.baseURL), client: client)
        let range = ByteRange(first: 1000, last: 1999)
        let info = try await upstream.contentInfo(for: TestFixtures.path("file"))
        let etag = try #require(info.etag)

        let ignored = await TestFixtures.fetch(upstream, "ignore-range/file", range: range)
        #expect(ignored?.error == nil)
        #expect(ignored?.start?.delivered == ByteRange(first: 0, last: Int64(data.count) - 1))
        #expect(ignored?.bytes.matches(data[...]) == true)

        let sameVersion = await TestFixtures.fetch(upstream, "ignore-range/file", range: range, ifRange: etag)
        #expect(sameVersion?.error == nil)
        #expect(sameVersion?.bytes.count == data.count)

        // A 200 carrying another ETag than the If-Range one: from an origin that ignores Range, and from one that
        // honours If-Range (RFC 9110 §13.1.5) for a version that is gone.
        for path in ["ignore-range/file", "file"] {
            let changed = await TestFixtures.fetch(upstream, path, range: range, ifRange: "\"old\"")
            #expect(changed?.error == .changed, "\(path)")
            #expect(changed?.startCalls == 0, "\(path)")
        }

        let guarded = await TestFixtures.fetch(upstream, "file", range: range, ifRange: etag)
        #expect(guarded?.bytes == Array(data[1000...1999]))
        let request = try await origin.requests().last { $0.path == "/file" }
        #expect(request?.range == "bytes=1000-1999")
        #expect(request?.headers["if-range"] == etag)
        await client.shutdown()
    }

    @Test func stalledOriginTimesOutWithinFirstByteTimeout() async throws {
        let origin = try await ServedOrigin.start(["file": RandomData.bytes(1024)])
        let client = try CurlClient()
        let upstream = try makeUpstream(
            TestFixtures.config(.http, baseURL: origin.baseURL, firstByte: .seconds(1)), client: client)

        let started = ContinuousClock.now
        let outcome = await TestFixtures.fetch(upstream, "stall/file", range: ByteRange(first: 0, last: 9))
        let elapsed = (outcome?.finishedAt ?? .now) - started
        #expect(outcome?.error == .timeout)
        #expect(elapsed >= .milliseconds(900), "\(elapsed)")
        #expect(elapsed < .seconds(2), "\(elapsed)")

        #expect(await TestFixtures.contentInfoError(upstream, "stall/file") == .timeout)
        await client.shutdown()
    }

    @Test func unreachableOriginIsATransportError() async throws {
        let client = try CurlClient()
        let upstream = try makeUpstream(
            TestFixtures.config(.http, baseURL: "http://127.0.0.1:\(FreePort.next())/"), client: client)
        let outcome = await TestFixtures.fetch(upstream, "file", range: ByteRange(first: 0, last: 9))
        guard case .transport(let code, let message)? = outcome?.error else {
            Issue.record("expected a transport error, got \(String(describing: outcome?.error))")
            return
        }
        #expect(code == 7)
        #expect(message == "Couldn't connect to server")
        await client.shutdown()
    }

    @Test func badConfigIsRefused() throws {
        let client = try CurlClient()
        #expect(throws: UpstreamSetupError.badBaseURL(upstream: "test")) {
            try makeUpstream(TestFixtures.config(.http, baseURL: "ftp://example.org/"), client: client)
        }
        #expect(throws: UpstreamSetupError.badHeader(upstream: "test", name: "X-Key")) {
            try makeUpstream(
                TestFixtures.config(
                    .http, baseURL: "http://127.0.0.1/", headers: ["X-Key": Secret("a\r\nInjected: 1")]),
                client: client)
        }
        #expect(throws: UpstreamSetupError.badRoot(upstream: "test")) {
            try makeUpstream(TestFixtures.folder("/nonexistent/sluice"), client: client)
        }
    }
}
