import Foundation
import SluiceCore
import SluiceGateway
import SluiceTestSupport
import Testing

/// Signed stream URLs through a running gateway: a `media` upstream with `"access": "signed"` and a public `open` one
/// over the same folder.
@Suite("signed stream URLs")
struct SignedStreamTests {
    static let key = Secret(String(repeating: "s", count: 40))
    static let signing = SigningConfig(currentKey: "k1", keys: ["k1": key])

    static func run(_ body: (TestGateway, [UInt8]) async throws -> Void) async throws {
        let media = try TemporaryDirectory()
        let bytes = try await RandomData.file("song.mp3", in: media, count: 300_000)
        _ = try await RandomData.file("other.mp3", in: media, count: 1_000)
        var signed = UpstreamConfig.directory("media", root: media.path)
        signed.access = .signed
        let open = UpstreamConfig.directory("open", root: media.path)
        let configure: (inout SluiceConfig) -> Void = { config in
            config.signing = signing
            config.signing?.maxTTL = .seconds(7_200)
            config.cache.revalidateAfter = .seconds(3_600)
        }
        try await TestGateway.run(upstreams: [signed, open], configure: configure) { gateway in
            try await body(gateway, bytes)
        }
    }

    /// The URL `POST /resolve` answers for `assetID`.
    static func resolve(_ gateway: TestGateway, _ assetID: String, ttl: String? = nil) async throws -> HTTPResult {
        var object = ["assetId": assetID]
        object["ttl"] = ttl
        return try await TestHTTP.request(
            "POST", gateway.url("/resolve"), headers: ["Content-Type": "application/json"],
            body: Array(try JSONSerialization.data(withJSONObject: object)))
    }

    static func url(of result: HTTPResult) throws -> String {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any])
        return try #require(object["url"] as? String)
    }

    @Test("unsigned, expired, tampered and foreign URLs are 403; signed ones serve misses and hits byte-exact")
    func accessIsChecked() async throws {
        try await Self.run { gateway, bytes in
            let unsigned = try await TestHTTP.get(gateway.url("/stream/media/song.mp3"))
            #expect(unsigned.status == 403)
            #expect(unsigned.header("Content-Type") == "application/problem+json")
            #expect(try await TestHTTP.get(gateway.url("/stream/open/song.mp3")).status == 200, "public upstream")

            let resolved = try await Self.resolve(gateway, "media://song.mp3")
            #expect(resolved.status == 200)
            let signed = try Self.url(of: resolved)
            #expect(signed.hasPrefix("/stream/media/song.mp3?expires=") && signed.contains("&kid=k1&sig="))
            let range = ["Range": "bytes=1000-99999"]
            let miss = try await TestHTTP.get(gateway.url(signed), headers: range)
            #expect(miss.status == 206 && miss.header("X-Cache") == "MISS")
            #expect(miss.body == Array(bytes[1000...99_999]))
            let hit = try await TestHTTP.get(gateway.url(signed), headers: range)
            #expect(hit.status == 206 && hit.header("X-Cache") == "HIT")
            #expect(hit.body == Array(bytes[1000...99_999]))
            #expect(try await TestHTTP.head(gateway.url(signed)).status == 200, "HEAD and GET share a URL")

            let now = Int64(Date().timeIntervalSince1970)
            let expired = URLSigner(Self.signing).sign(path: "/stream/media/song.mp3", expires: now - 1)
            let expiredHit = try await TestHTTP.get(gateway.url(expired), headers: range)
            #expect(expiredHit.status == 403 && expiredHit.text.contains("expired"), "a cached range is checked too")
            let expiredMiss = URLSigner(Self.signing).sign(path: "/stream/media/other.mp3", expires: now - 1)
            #expect(try await TestHTTP.get(gateway.url(expiredMiss)).status == 403)

            let query = signed[signed.firstIndex(of: "?")!...]
            #expect(try await TestHTTP.get(gateway.url("/stream/media/other.mp3" + query)).status == 403)
            let wrongKey = URLSigner(
                SigningConfig(currentKey: "k1", keys: ["k1": Secret(String(repeating: "x", count: 40))])
            )
            .sign(path: "/stream/media/song.mp3", expires: now + 60)
            #expect(try await TestHTTP.get(gateway.url(wrongKey), headers: range).status == 403)
        }
    }

    @Test("/resolve signs for the asked lifetime within signing.maxTTL, and leaves public upstreams unsigned")
    func resolveLifetimes() async throws {
        try await Self.run { gateway, _ in
            let before = Int64(Date().timeIntervalSince1970)
            let short = try Self.url(of: try await Self.resolve(gateway, "media://song.mp3", ttl: "30m"))
            let expires = try #require(Int64(short.firstMatch(of: /expires=(\d+)/)!.1))
            #expect((before + 1_800...before + 1_805).contains(expires))
            let tooLong = try await Self.resolve(gateway, "media://song.mp3", ttl: "3h")
            #expect(tooLong.status == 400 && tooLong.text.contains("maxTTL"))
            #expect(try await Self.resolve(gateway, "media://song.mp3", ttl: "soon").status == 400)
            #expect(try Self.url(of: try await Self.resolve(gateway, "open://song.mp3")) == "/stream/open/song.mp3")
        }
    }

    @Test("sluice sign prints a path the gateway opens; a public upstream or a too long --ttl is refused")
    func signCommand() async throws {
        let folder = try TemporaryDirectory()
        try Data(Self.key.value.utf8).write(to: URL(fileURLWithPath: folder.file("sign.key")))
        let config = """
            {"upstreams": {"media": {"kind": "directory", "root": "\(folder.path)", "access": "signed"},
                           "open": {"kind": "directory", "root": "\(folder.path)"}},
             "signing": {"currentKey": "k1", "keys": {"k1": {"secretFile": "sign.key"}}, "maxTTL": "2h"}}
            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: folder.file("sluice.json")))
        let sluice = try Repository.sluiceExecutable()
        let arguments = ["--config", folder.file("sluice.json")]
        let signed = try await CommandRun.run(sluice, ["sign", "media://song.mp3", "--ttl", "1h"] + arguments)
        #expect(signed.status == 0, "\(signed.errors)")
        let path = signed.output.trimmingCharacters(in: .newlines)
        #expect(path.hasPrefix("/stream/media/song.mp3?expires=") && !signed.output.contains(Self.key.value))
        try await Self.run { gateway, bytes in
            let result = try await TestHTTP.get(gateway.url(path))
            #expect(result.status == 200 && result.body == bytes)
        }
        #expect(try await CommandRun.run(sluice, ["sign", "open://song.mp3"] + arguments).status == 1)
        #expect(try await CommandRun.run(sluice, ["sign", "media://song.mp3", "--ttl", "3h"] + arguments).status == 1)
        #expect(try await CommandRun.run(sluice, ["sign", "media://song.mp3", "--ttl", "x"] + arguments).status == 64)
    }
}
