import SluiceCore
import SluiceTestSupport
import Testing

/// Cross-origin reads through a running gateway that allows one origin.
@Suite("CORS")
struct CORSTests {
    static let allowed = "https://player.example"

    static func run(_ body: (TestGateway, [UInt8]) async throws -> Void) async throws {
        let media = try TemporaryDirectory()
        let bytes = try await RandomData.file("clip.mp4", in: media, count: 200_000)
        let configure: (inout SluiceConfig) -> Void = { config in
            config.server.cors = CORSConfig(allowedOrigins: [allowed])
            config.cache.revalidateAfter = .seconds(3_600)
        }
        try await TestGateway.run(upstreams: [.directory("media", root: media.path)], configure: configure) { gateway in
            try await body(gateway, bytes)
        }
    }

    @Test("a preflight from the allowed origin is answered; another origin's is refused")
    func preflight() async throws {
        try await Self.run { gateway, _ in
            let url = gateway.streamURL("media", "clip.mp4")
            let ok = try await TestHTTP.request(
                "OPTIONS", url,
                headers: [
                    "Origin": Self.allowed, "Access-Control-Request-Method": "GET",
                    "Access-Control-Request-Headers": "range",
                ])
            #expect(ok.status == 204)
            #expect(ok.header("Access-Control-Allow-Origin") == Self.allowed)
            #expect(ok.header("Access-Control-Allow-Methods") == "GET, HEAD")
            #expect(ok.header("Access-Control-Allow-Headers")?.contains("Range") == true)
            let other = try await TestHTTP.request(
                "OPTIONS", url, headers: ["Origin": "https://evil.example", "Access-Control-Request-Method": "GET"])
            #expect(other.status == 403 && other.header("Access-Control-Allow-Origin") == nil)
            let resolve = try await TestHTTP.request(
                "OPTIONS", gateway.url("/resolve"),
                headers: ["Origin": Self.allowed, "Access-Control-Request-Method": "POST"])
            #expect(resolve.status == 204 && resolve.header("Access-Control-Allow-Methods") == "POST")
        }
    }

    @Test("misses and hits for the allowed origin expose Content-Range; other origins get no CORS fields")
    func responsesAreMarked() async throws {
        try await Self.run { gateway, bytes in
            let url = gateway.streamURL("media", "clip.mp4")
            for expected in ["MISS", "HIT"] {
                let result = try await TestHTTP.get(url, headers: ["Origin": Self.allowed, "Range": "bytes=10-20"])
                #expect(result.status == 206 && result.header("X-Cache") == expected)
                #expect(result.body == Array(bytes[10...20]))
                #expect(result.header("Access-Control-Allow-Origin") == Self.allowed)
                #expect(result.header("Access-Control-Expose-Headers")?.contains("Content-Range") == true)
                #expect(result.header("Vary")?.contains("Origin") == true)
            }
            let other = try await TestHTTP.get(
                url, headers: ["Origin": "https://evil.example", "Range": "bytes=10-20"])
            #expect(other.status == 206 && other.header("Access-Control-Allow-Origin") == nil)
            let none = try await TestHTTP.get(url, headers: ["Range": "bytes=10-20"])
            #expect(none.header("Access-Control-Allow-Origin") == nil)
        }
    }
}
