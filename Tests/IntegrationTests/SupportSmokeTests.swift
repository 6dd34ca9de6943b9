import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// The support library's peers and clients work against each other.
@Suite struct SupportSmokeTests {
    @Test func faultOriginCountsAndGatewayServes() async throws {
        let content = try TemporaryDirectory()
        let data = try RandomData.file("a.bin", in: content, count: 100_000)
        let origin = try await Peer.faultOrigin(root: content.path)
        var upstream = UpstreamConfig(name: "web", kind: .http)
        upstream.baseURL = origin.baseURL
        try await TestGateway.run(upstreams: [upstream]) { gateway in
            let whole = try await TestHTTP.get(gateway.streamURL("web", "a.bin"))
            #expect(whole.status == 200)
            #expect(whole.body == data)
            let raw = try await RawHTTP.request(port: gateway.port, target: "/stream/web/a.bin", headers: ["Range": "bytes=10-19"])
            #expect(raw.status == 206)
            #expect(raw.body == Array(data[10...19]))
        }
        let stats = try await origin.stats()
        #expect(stats.requests >= 1)
    }
}
