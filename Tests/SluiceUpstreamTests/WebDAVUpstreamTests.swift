import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceUpstream

/// The `webdav` adapter against rclone (Basic auth) and Apache mod_dav (Digest auth).
@Suite struct WebDAVUpstreamTests {
    /// A WebDAV server, the file it serves and the account it accepts.
    enum Server: String, CaseIterable, Sendable {
        case rclone
        case apache

        /// Where the test file lies (a space in rclone's name, to check the path encoding).
        var file: String { self == .rclone ? "media/clip one.mp4" : "media/song.mp3" }
        /// The type the server gives the file.
        var contentType: String { self == .rclone ? "video/mp4" : "audio/mpeg" }
        /// The account's password.
        var password: String { self == .rclone ? "s3cret" : "digest-pass" }

        /// The account's credentials with `password`: Basic for rclone, Digest for Apache.
        func auth(password: String) -> AuthConfig {
            switch self {
            case .rclone: .basic(username: "alice", password: Secret(password))
            case .apache: .digest(username: "bob", password: Secret(password))
            }
        }

        /// Starts the server on `content`.
        func start(serving content: String) async throws -> Peer {
            switch self {
            case .rclone: try await Peer.rclone(serving: content, user: "alice", password: password)
            case .apache: try await Peer.apacheDigest(serving: content, user: "bob", password: password)
            }
        }
    }

    @Test(arguments: Server.allCases)
    func metadataRangesIfRangeAndAuth(_ server: Server) async throws {
        let content = try TemporaryDirectory()
        let data = try await RandomData.file(server.file, in: content, count: 8 << 20)
        let peer = try await server.start(serving: content.path)
        let client = try CurlClient()
        let upstream = try makeUpstream(
            TestFixtures.config(.webdav, baseURL: peer.baseURL, auth: server.auth(password: server.password)),
            client: client)

        let info = try await upstream.contentInfo(for: TestFixtures.path(server.file))
        #expect(info.length == Int64(data.count))
        #expect(info.contentType == server.contentType)
        #expect(info.etag?.hasPrefix("\"") == true, "\(String(describing: info.etag))")
        #expect(info.lastModified == TemporaryDirectory.modificationDate)
        #expect(await TestFixtures.contentInfoError(upstream, "media") == .notAFile)
        #expect(await TestFixtures.contentInfoError(upstream, "media/missing.bin") == .notFound)

        let failures = await TestFixtures.checkRanges(upstream, server.file, data: data)
        #expect(failures.isEmpty, "\(failures)")
        let ifRange = await TestFixtures.checkIfRange(upstream, server.file, data: data, etag: info.etag)
        #expect(ifRange.isEmpty, "\(ifRange)")

        let wrong = try makeUpstream(
            TestFixtures.config(.webdav, baseURL: peer.baseURL, auth: server.auth(password: "wrong")), client: client)
        #expect(await TestFixtures.contentInfoError(wrong, server.file) == .unauthorized(status: 401))
        let refused = await TestFixtures.fetch(wrong, server.file, range: ByteRange(first: 0, last: 9))
        #expect(refused?.error == .unauthorized(status: 401))
        #expect(refused?.startCalls == 0)
        await client.shutdown()
    }
}
