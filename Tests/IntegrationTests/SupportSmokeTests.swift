import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// The support library's own pieces: byte comparison, peers and clients against each other.
@Suite struct SupportSmokeTests {
    @Test(
        arguments: [
            ([1, 2, 3], [1, 2, 3], nil),
            ([1, 2, 3], [1, 2, 4], 2),
            ([9, 2, 3], [1, 2, 3], 0),
            ([1, 2], [1, 2, 3], 2),
            ([1, 2, 3], [1, 2], 2),
            ([], [], nil),
        ] as [([UInt8], [UInt8], Int?)])
    func firstDifferenceFindsTheOffset(actual: [UInt8], expected: [UInt8], offset: Int?) {
        #expect(actual.firstDifference(from: expected[...]) == offset)
    }

    @Test func firstDifferenceInALargeBuffer() {
        let data = RandomData.bytes(5_000_000)
        var changed = data
        changed[4_321_987] ^= 0xFF
        #expect(data.firstDifference(from: data[...]) == nil)
        #expect(changed.firstDifference(from: data[...]) == 4_321_987)
        #expect(Array(data[1000..<2000]).matches(data[1000..<2000]))
    }

    @Test func pollTakesALastLookOnceTheTimeoutPassed() async {
        #expect(await Poll.until(within: .zero) { true })
        #expect(await Poll.value(within: .milliseconds(30)) { nil as Int? } == nil)
    }

    @Test func responseHeadJoinsRepeatedFieldsAndRefusesBadLines() throws {
        let text = "HTTP/1.1 206 Partial Content\r\nX-A: 1\r\nx-a:  2 \r\nContent-Range: bytes 0-0/9\r\n\r\nbody"
        let raw = Array(text.utf8)
        let end = try #require(ResponseHead.end(in: raw))
        let head = try ResponseHead(raw[..<end])
        #expect(head.status == 206)
        #expect(head.fields.map(\.name) == ["X-A", "x-a", "Content-Range"])
        #expect(head.headers == ["x-a": "1, 2", "content-range": "bytes 0-0/9"])
        #expect(ResponseHead.end(in: Array("HTTP/1.1 200 OK\r\n".utf8)) == nil)
        #expect(throws: PeerError.self) { try ResponseHead(Array("garbage".utf8)) }
        #expect(throws: PeerError.self) { try ResponseHead(Array("HTTP/1.1 200 OK\r\nno colon".utf8)) }
    }

    @Test func faultOriginCountsAndGatewayServes() async throws {
        let content = try TemporaryDirectory()
        let data = try await RandomData.file("a b.bin", in: content, count: 100_000)
        let origin = try await Peer.faultOrigin(root: content.path)
        let upstream = UpstreamConfig.http("web", baseURL: origin.baseURL)
        try await TestGateway.run(upstreams: [upstream]) { gateway in
            let whole = try await TestHTTP.get(gateway.streamURL("web", "a b.bin"))
            #expect(whole.status == 200)
            #expect(whole.body == data)
            let raw = try await RawHTTP.request(
                port: gateway.port, target: "/stream/web/a%20b.bin", headers: ["Range": "bytes=10-19"])
            #expect(raw.status == 206)
            #expect(raw.body == Array(data[10...19]))
            #expect(gateway.log.lines(containing: "request").count >= 2)
        }
        let stats = try await origin.stats()
        #expect(stats.requests >= 1)
        #expect(stats.bytes >= data.count)
        try await origin.resetStats()
        #expect(try await origin.stats().requests == 0)
    }
}
