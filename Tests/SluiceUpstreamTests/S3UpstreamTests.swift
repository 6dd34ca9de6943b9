import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceUpstream

/// The `s3` adapter's requests as the fault origin receives them: the URL each addressing style builds, the SigV4
/// fields libcurl adds, and the bounded retry of content info.
@Suite struct S3UpstreamTests {
    static let credentials = SigV4Credentials(
        region: "eu-west-1", accessKeyID: Secret("AKIDEXAMPLE"), secretAccessKey: Secret("never-sent-secret"),
        sessionToken: Secret("session-token-1"))

    static func store(endpoint: String, bucket: String, style: S3AddressingStyle, credentials: SigV4Credentials?)
        -> S3Config
    {
        let url = URL(string: endpoint)!
        let location = S3Location(
            endpoint: S3Endpoint(scheme: url.scheme!, host: url.host!, port: url.port), bucket: bucket,
            region: "eu-west-1", style: style)
        var store = S3Config(location: location, credentials: credentials)
        store.requests = TestFixtures.requests()
        return store
    }

    static func config(endpoint: String, bucket: String, style: S3AddressingStyle, credentials: SigV4Credentials?)
        -> UpstreamConfig
    {
        UpstreamConfig(
            name: "test", source: .s3(store(endpoint: endpoint, bucket: bucket, style: style, credentials: credentials))
        )
    }

    /// The request fields the fault origin echoed for a ranged GET of `key`.
    static func echoedFields(_ upstream: any Upstream, key: String) async throws -> [String: String] {
        let outcome = try #require(await TestFixtures.fetch(upstream, key))
        #expect(outcome.error == nil)
        let object = try JSONSerialization.jsonObject(with: Data(outcome.bytes)) as? [String: String]
        return Dictionary(uniqueKeysWithValues: try #require(object).map { ($0.key.lowercased(), $0.value) })
    }

    @Test func pathStyleSignsRangeAndPayloadHashAndEncodesTheKey() async throws {
        let origin = try await ServedOrigin.start()
        let client = try CurlClient()
        let config = Self.config(
            endpoint: origin.baseURL, bucket: "echo-headers", style: .path, credentials: Self.credentials)
        let upstream = try makeUpstream(config, client: client)
        let key = "a b+c~d%é/🎬/x.bin"
        let sink = CollectingSink()
        _ = upstream.fetch(TestFixtures.path(key), range: ByteRange(first: 0, last: 9), ifRange: nil, into: sink)
        _ = await sink.outcome()
        let fields = try #require(try await origin.requests().last?.headers)

        let path = try #require(try await origin.requests().last?.path)
        #expect(path == "/echo-headers/a%20b%2Bc~d%25%C3%A9/%F0%9F%8E%AC/x.bin")
        let authorization = try #require(fields["authorization"])
        let date = String(try #require(fields["x-amz-date"]).prefix(8))
        #expect(authorization.hasPrefix("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/\(date)/eu-west-1/s3/aws4_request, "))
        #expect(
            authorization.contains(
                "SignedHeaders=host;range;via;x-amz-content-sha256;x-amz-date;x-amz-security-token, Signature="))
        #expect(fields["range"] == "bytes=0-9")
        #expect(fields["x-amz-content-sha256"] == "UNSIGNED-PAYLOAD")
        #expect(fields["x-amz-security-token"] == "session-token-1")
        #expect(fields["expect"] == nil)
        #expect(!fields.values.contains { $0.contains("never-sent-secret") })
        await client.shutdown()
    }

    @Test func virtualHostedPutsTheBucketInTheSignedHost() async throws {
        let origin = try await ServedOrigin.start()
        let client = try CurlClient()
        let config = Self.config(
            endpoint: "http://localhost:\(origin.port)", bucket: "films", style: .virtualHosted,
            credentials: Self.credentials)
        let fields = try await Self.echoedFields(try makeUpstream(config, client: client), key: "echo-headers/clip.mp4")
        // libcurl resolves every `*.localhost` name to the loopback address itself.
        #expect(fields["host"] == "films.localhost:\(origin.port)")
        #expect(fields["authorization"]?.contains("SignedHeaders=host;") == true)
        await client.shutdown()
    }

    @Test func anonymousBucketsGetNoSignature() async throws {
        let origin = try await ServedOrigin.start()
        let client = try CurlClient()
        let config = Self.config(endpoint: origin.baseURL, bucket: "echo-headers", style: .path, credentials: nil)
        let fields = try await Self.echoedFields(try makeUpstream(config, client: client), key: "clip.mp4")
        #expect(fields["authorization"] == nil)
        #expect(fields["x-amz-content-sha256"] == nil)
        await client.shutdown()
    }

    @Test func busyContentInfoIsAskedThreeTimesThenFails() async throws {
        let origin = try await ServedOrigin.start()
        let client = try CurlClient()
        // `status/503/` answers 503 with `Retry-After: 1`; the cap keeps the test short.
        let store = Self.store(endpoint: origin.baseURL, bucket: "status", style: .path, credentials: nil)
        let upstream = try S3Upstream(
            name: "test", store: store, client: client, backoff: RetryBackoff(cap: .milliseconds(20)))
        #expect(
            await TestFixtures.contentInfoError(upstream, "503/clip.mp4") == .busy(status: 503, retryAfter: .seconds(1))
        )
        #expect(try await origin.requests().map(\.method) == ["HEAD", "HEAD", "HEAD"])

        try await origin.peer.resetStats()
        // A refused HEAD has no body, so the refusal is read from a one-byte GET; this one is not S3 XML.
        #expect(await TestFixtures.contentInfoError(upstream, "403/clip.mp4") == .unauthorized(status: 403))
        #expect(try await origin.requests().map { "\($0.method) \($0.range ?? "")" } == ["HEAD ", "GET bytes=0-0"])
        #expect(await TestFixtures.contentInfoError(upstream, "404/clip.mp4") == .notFound)
        await client.shutdown()
    }
}
