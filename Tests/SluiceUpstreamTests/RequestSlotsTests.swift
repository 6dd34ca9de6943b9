import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceUpstream

/// `maxConcurrentRequests`: an upstream never has more requests in flight than its slots, the rest wait in order,
/// and a request that ends or is cancelled hands its slot to the next.
@Suite struct RequestSlotsTests {
    @Test func requestsBeyondTheCapWaitForASlot() async throws {
        let origin = try await ServedOrigin.start(["a.bin": RandomData.bytes(1_000)])
        let client = try CurlClient()
        var server = HTTPServerConfig(baseURL: origin.baseURL)
        server.requests.maxConcurrentRequests = 2
        let upstream = try makeUpstream(UpstreamConfig(name: "test", source: .http(server)), client: client)
        // `stall/` reads a request and answers nothing until the client goes.
        let stalled = (0..<4).map { _ in CollectingSink() }
        let handles = stalled.map {
            upstream.fetch(
                TestFixtures.path("stall/a.bin"), range: ByteRange(first: 0, last: 9), ifRange: nil, into: $0)
        }
        #expect(
            await Poll.until(within: .seconds(10)) {
                upstream.requestLoad == RequestLoad(limit: 2, active: 2, waiting: 2)
            })
        // A slot is taken when its request is handed to libcurl, a moment before the origin has read it.
        #expect(await Poll.until(within: .seconds(10)) { (try? await origin.requests().count) == 2 })
        #expect(try await origin.requests().count == 2, "more than two requests in flight")

        // A cancelled request in flight gives its slot to the oldest waiting one; a cancelled waiting one leaves.
        handles[0].cancel()
        #expect(await stalled[0].outcome()?.error == .cancelled)
        #expect(await Poll.until(within: .seconds(10)) { (try? await origin.requests().count) == 3 })
        handles[3].cancel()
        #expect(await stalled[3].outcome()?.error == .cancelled)
        #expect(upstream.requestLoad == RequestLoad(limit: 2, active: 2, waiting: 0))
        #expect(try await origin.requests().count == 3, "a cancelled waiting request was sent")

        // Slots free again: an ordinary request goes through once one is.
        handles[1].cancel()
        let plain = await TestFixtures.fetch(upstream, "a.bin", range: ByteRange(first: 0, last: 99))
        #expect(plain?.error == nil && plain?.bytes.count == 100)
        handles[2].cancel()
        #expect(await Poll.until(within: .seconds(10)) { upstream.requestLoad?.active == 0 })
        await client.shutdown()
    }
}
