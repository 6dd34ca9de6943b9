import Foundation
import SluiceCore
import SluiceTestSupport
import SluiceUpstream
import Testing

/// Redirects lead only to hosts an upstream is configured for (its base URL's origin and its `redirectHosts`),
/// never with userinfo, never to another scheme, never back into the gateway; and a request that loops through the
/// gateway is stopped by its `Via` pseudonym. A refused redirect is a 502 that reached nothing.
@Suite struct RedirectTests {
    /// A base URL on `origin` whose every answer is `status` with `Location: location#/<asset path>`: the asset
    /// path the gateway appends lands in the fragment, which is never fetched, so the hop goes exactly to `location`.
    private static func redirecting(_ origin: Peer, _ status: Int, to location: String) -> String {
        let encoded = (location + "#").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? location
        return origin.url("redirect-to/\(status)/\(encoded)/")
    }

    private static func upstream(_ name: String, base: String, redirectHosts: [String] = []) -> UpstreamConfig {
        var upstream = UpstreamConfig.http(name, baseURL: base)
        upstream.server.redirectHosts = redirectHosts
        upstream.server.requests.timeouts.connect = .seconds(5)
        upstream.server.requests.timeouts.firstByte = .seconds(5)
        return upstream
    }

    @Test func redirectsAnywhereUnconfiguredAre502AndReachNothing() async throws {
        let content = try TemporaryDirectory()
        try content.write("a.bin", RandomData.bytes(1000))
        let origin = try await Peer.faultOrigin(root: content.path)
        let other = try await Peer.faultOrigin(root: content.path)
        let (port, own) = (other.port, origin.port)
        // Each would serve a.bin if followed: other is a plain origin on another loopback port.
        let shapes = [
            "http://127.0.0.1:\(port)/a.bin", "http://localhost:\(port)/a.bin", "http://2130706433:\(port)/a.bin",
            "http://0x7f000001:\(port)/a.bin", "http://0177.0.0.1:\(port)/a.bin", "http://127.1:\(port)/a.bin",
            "http://[::ffff:127.0.0.1]:\(port)/a.bin", "http://[::ffff:127.0.0.1]:\(own)/a.bin",
            "//127.0.0.1:\(port)/a.bin", "http://user:s3cretPw@127.0.0.1:\(port)/a.bin",
            "http://user:s3cretPw@127.0.0.1:\(own)/a.bin", "http://@127.0.0.1:\(own)/a.bin",
            "https://127.0.0.1:\(own)/a.bin", "ftp://127.0.0.1:\(port)/a.bin", "file:///etc/passwd",
            "gopher://127.0.0.1:\(port)/a.bin",
        ]
        let statuses = [301, 302, 303, 307, 308]
        let upstreams = shapes.enumerated().map { index, location in
            Self.upstream("r\(index)", base: Self.redirecting(origin, statuses[index % statuses.count], to: location))
        }
        try await TestGateway.run(upstreams: upstreams) { gateway in
            for (index, location) in shapes.enumerated() {
                let target = "/stream/r\(index)/a.bin"
                let result = try await RawHTTP.request(port: gateway.port, target: target)
                #expect(result.status == 502, "\(location) answered \(result.status)")
                BadInputTests.expectProblem(result, status: 502, target: location)
            }
            #expect(try await other.stats().requests == 0, "a refused redirect reached the other listener")
            let received = try await origin.stats().recent
            #expect(received.count == shapes.count, "\(received.map(\.path))")
            #expect(received.allSatisfy { $0.path.hasPrefix("/redirect-to/") && $0.headers["authorization"] == nil })
            let refusals = gateway.log.lines(containing: "upstream redirect refused")
            #expect(refusals.count == shapes.count, "\(refusals)")
            #expect(refusals.allSatisfy { !$0.contains("s3cret") && !$0.contains("user:") }, "\(refusals)")
            #expect(refusals.contains { $0.contains("target=http://127.0.0.1:\(port) ") })
        }
    }

    @Test func redirectsWithinTheOriginOrToAListedHostServeTheFile() async throws {
        let content = try TemporaryDirectory()
        let data = RandomData.bytes(100_000)
        try content.write("a.bin", data)
        let origin = try await Peer.faultOrigin(root: content.path)
        let other = try await Peer.faultOrigin(root: content.path)
        let own = origin.port
        let allowed = [
            Self.upstream("path", base: Self.redirecting(origin, 302, to: "/a.bin")),
            Self.upstream("relative", base: Self.redirecting(origin, 307, to: "../../../a.bin")),
            Self.upstream("absolute", base: Self.redirecting(origin, 301, to: "http://127.0.0.1:\(own)/a.bin")),
            Self.upstream("numeric", base: Self.redirecting(origin, 308, to: "http://2130706433:\(own)/a.bin")),
            Self.upstream(
                "listed", base: Self.redirecting(origin, 303, to: "http://127.0.0.1:\(other.port)/a.bin"),
                redirectHosts: [other.baseURL]),
        ]
        let unlisted = Self.upstream(
            "unlisted", base: Self.redirecting(origin, 303, to: "http://127.0.0.1:\(other.port)/a.bin"))
        try await TestGateway.run(upstreams: allowed + [unlisted]) { gateway in
            for upstream in allowed {
                let result = try await TestHTTP.get(gateway.streamURL(upstream.name, "a.bin"))
                #expect(result.status == 200, "\(upstream.name): \(result.text.prefix(200))")
                #expect(result.body.firstDifference(from: data[...]) == nil, "\(upstream.name): bytes differ")
            }
            let reached = try await other.stats().requests
            // A first read's GET also tells the content info: the listed host serves it, with no HEAD first.
            #expect(reached >= 1, "the listed host served no GET")
            let refused = try await TestHTTP.get(gateway.streamURL("unlisted", "a.bin"))
            #expect(refused.status == 502)
            #expect(try await other.stats().requests == reached, "the unlisted upstream reached the other host")
        }
    }

    /// An origin that redirects to the gateway's own stream URL: refused before a request goes out, whether the
    /// gateway's origin is unlisted or listed in `redirectHosts` (its own listeners are never a redirect target).
    @Test func aRedirectBackIntoTheGatewayIsRefusedAtOnce() async throws {
        let content = try TemporaryDirectory()
        try content.write("rself1", RandomData.bytes(100))
        let origin = try await Peer.faultOrigin(root: content.path)
        let port = FreePort.next()
        let gatewayOrigin = "http://127.0.0.1:\(port)"
        let upstreams = [
            Self.upstream("plain", base: Self.redirecting(origin, 302, to: "\(gatewayOrigin)/stream/plain/rself2")),
            Self.upstream(
                "listed", base: Self.redirecting(origin, 302, to: "\(gatewayOrigin)/stream/listed/rself2"),
                redirectHosts: [gatewayOrigin]),
        ]
        let listen: (inout SluiceConfig) -> Void = { $0.server.listen.port = port }
        try await TestGateway.run(upstreams: upstreams, configure: listen) { gateway in
            for name in ["plain", "listed"] {
                let result = try await TestHTTP.get(gateway.streamURL(name, "rself1"))
                #expect(result.status == 502, "\(name): \(result.text.prefix(200))")
            }
            // A hop into the gateway would have sent it to the origin again, for rself2.
            let received = try await origin.stats().recent.map(\.path)
            #expect(received.count == 2 && received.allSatisfy { $0.hasSuffix("/rself1") }, "\(received)")
            let refusals = gateway.log.lines(containing: "upstream redirect refused")
            #expect(refusals.count == 2, "\(refusals)")
            #expect(refusals.contains { $0.contains("upstream=listed") && $0.contains("own listeners") }, "\(refusals)")
            #expect(gateway.log.lines(containing: "rself2").isEmpty, "the gateway answered its own redirect")
        }
    }

    /// An upstream whose base URL is the gateway itself: the nested request carries the gateway's `Via`
    /// pseudonym and is answered 508, so the client's request ends as a 502 after exactly two gateway requests.
    @Test func aLoopThroughTheGatewayStopsAtItsOwnVia() async throws {
        let port = FreePort.next()
        let upstream = Self.upstream("self", base: "http://127.0.0.1:\(port)/stream/self/")
        let listen: (inout SluiceConfig) -> Void = { $0.server.listen.port = port }
        try await TestGateway.run(upstreams: [upstream], configure: listen) { gateway in
            let result = try await TestHTTP.get(gateway.streamURL("self", "a.bin"))
            #expect(result.status == 502, "\(result.text.prefix(200))")
            let lines = try #require(
                await Poll.value(within: .seconds(10), every: .milliseconds(20)) { () -> [String]? in
                    let lines = gateway.log.lines(containing: "path=/stream/self/a.bin")
                    return lines.count >= 2 ? lines : nil
                }, "\(gateway.log.lines)")
            #expect(lines.count == 2, "\(lines)")
            #expect(lines.contains { $0.contains("status=508") } && lines.contains { $0.contains("status=502") })

            let looped = try await TestHTTP.get(
                gateway.streamURL("self", "b.bin"), headers: ["Via": "1.0 fred, 1.1 \(ViaPseudonym.own)"])
            #expect(looped.status == 508)
            BadInputTests.expectProblem(looped, status: 508, target: "own Via")
        }
    }
}
