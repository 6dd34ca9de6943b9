import Foundation
import SluiceCore
import Testing

@testable import SluiceUpstream

/// The `webdav` adapter against rclone (Basic auth) and Apache mod_dav (Digest auth).
@Suite struct WebDAVUpstreamTests {
    static let size = 8 << 20

    @Test func rcloneMetadataRangesAndBasicAuth() async throws {
        let content = try TemporaryDirectory()
        let data = TestFixtures.randomBytes(Self.size)
        try content.write("media/clip one.mp4", data)
        let peer = try await Peer.rclone(serving: content.path, user: "alice", password: "s3cret")
        let client = try CurlClient()
        let upstream = try makeUpstream(
            TestFixtures.config(
                .webdav, baseURL: peer.baseURL, auth: .basic(username: "alice", password: Secret("s3cret"))),
            client: client)

        let info = try await upstream.contentInfo(for: TestFixtures.path("media/clip one.mp4"))
        #expect(info.length == Int64(Self.size))
        #expect(info.contentType == "video/mp4")
        #expect(info.etag?.hasPrefix("\"") == true)
        #expect(info.lastModified == TemporaryDirectory.modificationDate)

        #expect(await TestFixtures.contentInfoError(upstream, "media") == .notAFile)
        #expect(await TestFixtures.contentInfoError(upstream, "media/missing.mp4") == .notFound)
        let failures = await TestFixtures.checkRanges(upstream, "media/clip one.mp4", data: data)
        #expect(failures.isEmpty, "\(failures)")

        let wrong = try makeUpstream(
            TestFixtures.config(
                .webdav, baseURL: peer.baseURL, auth: .basic(username: "alice", password: Secret("nope"))),
            client: client)
        #expect(await TestFixtures.contentInfoError(wrong, "media/clip one.mp4") == .unauthorized(status: 401))
        let refused = await TestFixtures.fetch(wrong, "media/clip one.mp4", range: ByteRange(first: 0, last: 9))
        #expect(refused?.error == .unauthorized(status: 401))
        #expect(refused?.startCalls == 0)
        await client.shutdown()
    }

    @Test func apacheMetadataRangesAndDigestAuth() async throws {
        let content = try TemporaryDirectory()
        let data = TestFixtures.randomBytes(Self.size)
        try content.write("media/song.mp3", data)
        let peer = try await Peer.apacheDigest(serving: content.path, user: "bob", password: "digest-pass")
        let client = try CurlClient()
        let upstream = try makeUpstream(
            TestFixtures.config(
                .webdav, baseURL: peer.baseURL, auth: .digest(username: "bob", password: Secret("digest-pass"))),
            client: client)

        let info = try await upstream.contentInfo(for: TestFixtures.path("media/song.mp3"))
        #expect(info.length == Int64(Self.size))
        #expect(info.contentType == "audio/mpeg")
        #expect(info.etag?.hasPrefix("\"") == true, "\(String(describing: info.etag))")
        #expect(info.lastModified == TemporaryDirectory.modificationDate)
        #expect(await TestFixtures.contentInfoError(upstream, "media") == .notAFile)
        #expect(await TestFixtures.contentInfoError(upstream, "media/missing.mp3") == .notFound)

        let failures = await TestFixtures.checkRanges(upstream, "media/song.mp3", data: data)
        #expect(failures.isEmpty, "\(failures)")

        let guarded = await TestFixtures.fetch(
            upstream, "media/song.mp3", range: ByteRange(first: 5, last: 9), ifRange: info.etag)
        #expect(guarded?.bytes == Array(data[5...9]))
        let stale = await TestFixtures.fetch(
            upstream, "media/song.mp3", range: ByteRange(first: 5, last: 9), ifRange: "\"old\"")
        #expect(stale?.error == .changed)

        let wrong = try makeUpstream(
            TestFixtures.config(
                .webdav, baseURL: peer.baseURL, auth: .digest(username: "bob", password: Secret("bad"))),
            client: client)
        #expect(await TestFixtures.contentInfoError(wrong, "media/song.mp3") == .unauthorized(status: 401))
        let refused = await TestFixtures.fetch(wrong, "media/song.mp3", range: ByteRange(first: 0, last: 9))
        #expect(refused?.error == .unauthorized(status: 401))
        await client.shutdown()
    }
}
