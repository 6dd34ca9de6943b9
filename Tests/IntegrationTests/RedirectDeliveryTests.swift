import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// `delivery: redirect` on a OneDrive upstream: streams answer with the provider's download URL, the same one while
/// it lasts, and players following it read the file from the content host.
@Suite struct RedirectDeliveryTests {
    static func apiRequests(_ emulator: OneDriveEmulator) async throws -> Int {
        try await (emulator.stats()["api"] as? [String: Any])?["requests"] as? Int ?? -1
    }

    @Test func streamsRedirectToOneLinkThatPlayersFollow() async throws {
        let drive = try TemporaryDirectory()
        let movie = try await PlayerTests.makeMovie(in: drive)
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: movie)))
        let emulator = try await OneDriveEmulator(root: drive.path)
        let folder = try TemporaryDirectory()
        var upstream = OneDriveTests.upstream(
            emulator, tokenFile: try OneDriveTests.tokenFile(for: emulator, in: folder))
        upstream.delivery = .redirect(status: 307)
        let token = "redirect-admin-\(UInt64.random(in: .min ... .max))"
        try await TestGateway.run(upstreams: [upstream]) { config in
            config.server.adminToken = Secret(token)
        } _: { gateway in
            let url = gateway.streamURL("od", "movie one.mp4")
            let first = try await TestHTTP.get(url, headers: ["Range": "bytes=0-99"])
            #expect(first.status == 307)
            let location = try #require(first.header("Location"))
            #expect(location.hasPrefix(emulator.contentOrigin + "/"), "\(location)")
            #expect(first.header("Access-Control-Allow-Origin") == "*")
            let cacheControl = try #require(first.header("Cache-Control"))
            let maxAge = try #require(Int(cacheControl.replacingOccurrences(of: "private, max-age=", with: "")))
            // Graph's URLs are used for two minutes, minus the margin for the player to start.
            #expect(cacheControl.hasPrefix("private, ") && (90...105).contains(maxAge), "\(cacheControl)")
            #expect(first.body.isEmpty)
            // Asking again (a seek, a HEAD) hands out the same link without another Graph request.
            let head = try await TestHTTP.head(url)
            #expect(head.status == 307 && head.header("Location") == location)
            #expect(try await Self.apiRequests(emulator) == 1)

            // curl follows the redirect to the content host and gets exact ranges.
            for (first, last) in [
                (0, 99), (bytes.count / 2, bytes.count / 2 + 65_535), (bytes.count - 10, bytes.count - 1),
            ] {
                let fetched = try await PlayerTests.run(
                    ["/usr/bin/curl", "-sSfL", "-r", "\(first)-\(last)", "-o", drive.file("range.bin"), url], in: drive)
                #expect(fetched.status == .exited(0), "curl: \(fetched.output)")
                let got = Array(try Data(contentsOf: URL(fileURLWithPath: drive.file("range.bin"))))
                #expect(got.firstDifference(from: bytes[first...last]) == nil, "bytes \(first)-\(last)")
            }
            // ffprobe follows it too, and reads the whole index from the content host.
            let probe = try await PlayerTests.run(
                [
                    "/usr/bin/ffprobe", "-v", "error", "-show_entries", "format=duration", "-of", "default=nw=1:nk=1",
                    url,
                ],
                in: drive)
            #expect(probe.status == .exited(0), "ffprobe: \(probe.output)")
            #expect(abs((Double(probe.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) - 60) < 1)
            #expect(try await Self.apiRequests(emulator) == 1)
            let content = try await emulator.stats()["content"] as? [String: Any]
            #expect(content?["withAuthorization"] as? Int == 0)
            let metrics = try await TestHTTP.get(gateway.url("/metrics"), headers: ["Authorization": "Bearer \(token)"])
            #expect(metrics.text.contains(#"sluice_upstream_redirects_total{upstream="od"} "#))
        }
    }

    @Test func s3StreamsRedirectToOnePresignedURL() async throws {
        let data = RandomData.bytes(1 << 20)
        let moto = try await MotoS3.start(bucket: "films", objects: ["a dir/clip é.mp4": data])
        var upstream = S3MotoTests.upstream("films", moto: moto, style: .path)
        upstream.delivery = .redirect(status: 302)
        try await TestGateway.run(upstreams: [upstream]) { gateway in
            let url = gateway.url(try S3MotoTests.target("films", "a dir/clip é.mp4"))
            let first = try await TestHTTP.get(url)
            #expect(first.status == 302)
            let location = try #require(first.header("Location"))
            #expect(location.hasPrefix("http://127.0.0.1:\(moto.peer.port)/films/a%20dir/clip%20%C3%A9.mp4?"))
            #expect(location.contains("X-Amz-Signature=") && !location.contains(moto.secretAccessKey))
            #expect(try await TestHTTP.get(url).header("Location") == location)
            // The gateway asked S3 for nothing: the URL is signed, not fetched.
            #expect(await moto.settledRequests().isEmpty)
            // moto 5.2.5 answers every presigned URL with a 500 once its authentication is on (KeyError
            // 'HTTP_AUTHORIZATION', boto3's own URLs included), so the signature is checked against AWS's worked
            // example in S3PresignerTests instead of against moto.
            let query = try #require(URLComponents(string: location)?.queryItems)
            #expect(query.first { $0.name == "X-Amz-Credential" }?.value?.hasPrefix(moto.accessKeyID + "/") == true)
            #expect(query.first { $0.name == "X-Amz-Expires" }?.value == "3600")
        }
    }
}
