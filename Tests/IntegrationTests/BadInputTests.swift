import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// Bad asset paths are refused with 400 problem+json before any upstream is contacted (docs/api.md); unknown
/// upstreams are 404. The origin's own counters prove it received nothing.
@Suite struct BadInputTests {
    /// Request targets (sent byte for byte) that must be refused.
    static let traversals: [String] = [
        "/stream/web/../secret.bin",
        "/stream/web/films/../../secret.bin",
        "/stream/web/./a.bin",
        "/stream/web/films/%2e%2e/a.bin",
        "/stream/web/films/%2E%2E/a.bin",
        "/stream/web/films/%2e%2E/%2e%2e/etc/passwd",
        "/stream/web/films/.%2e/a.bin",
        "/stream/web/%2e/a.bin",
        "/stream/web/films%2Fa.bin",
        "/stream/web/films%2fa.bin",
        "/stream/web/a%00.bin",
        "/stream/web/a%0A.bin",
        "/stream/web/a%7F.bin",
        "/stream/web/films%5Ca.bin",
        "/stream/web/films%5c..%5ca.bin",
        "/stream/web/films\\a.bin",
        "/stream/web/films//a.bin",
        "/stream/web/films/",
        "/stream/web/",
        "/stream//a.bin",
        "/stream/we%62/a.bin",
        "/stream/%2e%2e/web/a.bin",
        "/stream/web/a%ZZ.bin",
        "/stream/web/a%C3%28.bin",
        "/stream/web/" + String(repeating: "x", count: 10_240),
        "/stream/web/" + String(repeating: "ab/", count: 3_400) + "a.bin",
    ]

    @Test func traversalAndMalformedPathsAre400WithoutContactingTheUpstream() async throws {
        let content = try TemporaryDirectory()
        try content.write("a.bin", Array("public".utf8))
        let origin = try await Peer.faultOrigin(root: content.path)
        let upstream = UpstreamConfig.http("web", baseURL: origin.baseURL)
        try await TestGateway.run(upstreams: [upstream]) { gateway in
            for target in Self.traversals {
                for method in ["GET", "HEAD"] {
                    let result = try await RawHTTP.request(port: gateway.port, target: target, method: method)
                    #expect(result.status == 400, "\(method) \(target.prefix(80))")
                    #expect(
                        result.header("Content-Type") == "application/problem+json", "\(method) \(target.prefix(80))")
                    if method == "GET" { Self.expectProblem(result, status: 400, target: target) }
                }
            }
            let stats = try await origin.stats()
            #expect(stats.requests == 0, "the upstream was contacted: \(stats.requestsByPath)")

            // The same gateway still serves a good path, so the zero above is not an unreachable origin.
            let good = try await TestHTTP.get(gateway.streamURL("web", "a.bin"))
            #expect(good.status == 200)
            #expect(good.text == "public")
            #expect(try await origin.stats().requests >= 1)
        }
    }

    /// A literal NUL byte (not `%00`) in the request target: libmicrohttpd hands the target over as a C string,
    /// which must not end the path early (`/stream/web/a<NUL>.bin` is not `/stream/web/a`).
    @Test func literalNULInTheTargetIs400WithoutContactingTheUpstream() async throws {
        let content = try TemporaryDirectory()
        try content.write("a", Array("the truncated path".utf8))
        let origin = try await Peer.faultOrigin(root: content.path)
        let upstream = UpstreamConfig.http("web", baseURL: origin.baseURL)
        try await TestGateway.run(upstreams: [upstream]) { gateway in
            let target = Array("/stream/web/a".utf8) + [0] + Array(".bin".utf8)
            let result = try await RawHTTP.request(port: gateway.port, rawTarget: target)
            #expect(result.status == 400, "got \(result.status): \(result.text.prefix(100))")
            let stats = try await origin.stats()
            #expect(stats.requests == 0, "the upstream was asked for \(stats.requestsByPath)")
        }
    }

    /// README: a `directory` upstream never leaves its root, symlinks included: links to a file or a folder outside
    /// are missing objects (404), links inside the root still serve.
    @Test func directoryUpstreamNeverFollowsSymlinksOutOfItsRoot() async throws {
        let outside = try TemporaryDirectory()
        let secret = Array("outside the root".utf8)
        try outside.write("secret.bin", secret)
        let root = try TemporaryDirectory()
        let inside = try await RandomData.file("films/real.bin", in: root, count: 5000)
        try FileManager.default.createSymbolicLink(
            atPath: root.file("escape.bin"), withDestinationPath: outside.file("secret.bin"))
        try FileManager.default.createSymbolicLink(atPath: root.file("elsewhere"), withDestinationPath: outside.path)
        try FileManager.default.createSymbolicLink(
            atPath: root.file("alias.bin"), withDestinationPath: root.file("films/real.bin"))
        let upstream = UpstreamConfig.directory("local", root: root.path)
        try await TestGateway.run(upstreams: [upstream]) { gateway in
            for path in ["escape.bin", "elsewhere/secret.bin"] {
                for method in ["GET", "HEAD"] {
                    let result = try await TestHTTP.request(method, gateway.streamURL("local", path))
                    #expect(result.status == 404, "\(method) \(path)")
                    #expect(!result.text.contains("outside the root"), "\(method) \(path)")
                }
            }
            let alias = try await TestHTTP.get(gateway.streamURL("local", "alias.bin"))
            #expect(alias.status == 200)
            #expect(alias.body == inside)
        }
    }

    @Test func unknownUpstreamIs404WithoutContactingAnyUpstream() async throws {
        let content = try TemporaryDirectory()
        try content.write("a.bin", Array("public".utf8))
        let origin = try await Peer.faultOrigin(root: content.path)
        let upstream = UpstreamConfig.http("web", baseURL: origin.baseURL)
        try await TestGateway.run(upstreams: [upstream]) { gateway in
            for target in ["/stream/nope/a.bin", "/stream/webx/a.bin", "/stream/WEB2/a.bin"] {
                let result = try await RawHTTP.request(port: gateway.port, target: target)
                #expect(result.status == 404, "\(target)")
                Self.expectProblem(result, status: 404, target: target)
            }
            #expect(try await origin.stats().requests == 0)
        }
    }

    /// The body is an RFC 9457 problem with `type`, `title`, `status` and `detail`.
    static func expectProblem(_ result: HTTPResult, status: Int, target: String) {
        #expect(result.header("Content-Type") == "application/problem+json", "\(target.prefix(80))")
        let object = try? JSONSerialization.jsonObject(with: Data(result.body)) as? [String: Any]
        #expect(object?["status"] as? Int == status, "\(target.prefix(80)): \(result.text.prefix(200))")
        #expect(
            object?["type"] is String && object?["title"] is String && object?["detail"] is String,
            "\(target.prefix(80)): \(result.text.prefix(200))")
    }
}
