import Foundation
import SluiceTestSupport
import Testing

extension CacheTests {
    /// Issue 3, persistence: a warmed file survives a gateway restart and plays with its upstream down.
    @Suite struct Persistence {
        static let fileSize = 24 << 20

        @Test(.timeLimit(.minutes(2)))
        func warmedFilePlaysAfterRestartWithTheUpstreamStopped() async throws {
            let content = try TemporaryDirectory()
            let data = try await RandomData.file("song.bin", in: content, count: Self.fileSize)
            let origin = try await Peer.faultOrigin(root: content.path)
            defer { origin.stop() }
            let cache = try TemporaryDirectory()
            let settings = CacheFixture.Settings(directory: cache.file("cache"), revalidateAfter: .seconds(1))

            try await CacheFixture.withGateway(origin, settings) { gateway in
                let warm = try await CacheStreamClient.get(
                    port: gateway.port, target: CacheFixture.target("song.bin"), expected: .bytes(data, offset: 0))
                #expect(warm.status == 200)
                #expect(warm.exact)
            }
            let warmed = try await origin.stats()
            #expect(Int64(warmed.bytes) >= Int64(Self.fileSize))
            let port = origin.port
            origin.stop()
            #expect(!FreePort.isListening(port), "the upstream must be unreachable")
            // Past revalidateAfter: the gateway has to ask the upstream, fail to reach it, and keep the cached info.
            try await Task.sleep(for: .milliseconds(1500))

            try await CacheFixture.withGateway(origin, settings) { gateway in
                let whole = try await CacheStreamClient.get(
                    port: gateway.port, target: CacheFixture.target("song.bin"), expected: .bytes(data, offset: 0))
                #expect(whole.status == 200)
                #expect(whole.header("X-Cache") == "HIT")
                #expect(whole.exact, "\(whole.summary)")

                let first = 5_000_000
                let range = try await CacheStreamClient.get(
                    port: gateway.port, target: CacheFixture.target("song.bin"), headers: ["Range": "bytes=\(first)-"],
                    expected: .bytes(data, offset: Int64(first)))
                #expect(range.status == 206)
                #expect(range.header("Content-Range") == "bytes \(first)-\(Self.fileSize - 1)/\(Self.fileSize)")
                #expect(range.exact)
            }
        }
    }
}
