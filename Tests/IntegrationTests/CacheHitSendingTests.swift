import Foundation
import SluiceTestSupport
import Testing

extension CacheTests {
    /// Issue 3, serving: hits are copied into the socket from the data file's mapping, at every size. A hit sent with
    /// `sendfile` would hold a descriptor of its own for as long as it is in progress, and would leave the socket
    /// reading the page cache after it completed, where eviction or a new version may change the bytes.
    @Suite struct HitSending {
        static let fileSize = 8 << 20
        static let span: Int64 = 4 << 20
        static let clients = 4
        static let path = "film.bin"

        @Test(.timeLimit(.minutes(2)))
        func largeHitsInProgressHoldNoDescriptorOfTheirOwnAndArriveExact() async throws {
            let content = try TemporaryDirectory()
            let data = try await RandomData.file(Self.path, in: content, count: Self.fileSize)
            let origin = try await Peer.faultOrigin(root: content.path)
            defer { origin.stop() }
            let cache = try TemporaryDirectory()
            let settings = CacheFixture.Settings(directory: cache.file("cache"))
            let dataFile = CacheFixture.dataFile(of: Self.path, in: settings.directory)
            let target = CacheFixture.target(Self.path)
            try await CacheFixture.withGateway(origin, settings) { gateway in
                let warm = try await CacheStreamClient.get(
                    port: gateway.port, target: target, expected: .bytes(data, offset: 0))
                #expect(warm.exact)
                let ranges = (0..<Int64(Self.clients)).map { client in
                    let first = client * 997_001
                    return first...(first + Self.span - 1)
                }
                for range in ranges {
                    // The warm-up's last chunks may still be on their way to the store when its bytes reached it.
                    let hit = try await Poll.value(within: .seconds(10), every: .milliseconds(50)) {
                        let response = try await RawHTTP.request(
                            port: gateway.port, target: target,
                            headers: ["Range": "bytes=\(range.lowerBound)-\(range.upperBound)"])
                        return response.header("X-Cache") == "HIT" ? response : nil
                    }
                    #expect(hit?.body.firstDifference(from: data[Int(range.lowerBound)...Int(range.upperBound)]) == nil)
                }

                // Clients with 16 KiB receive buffers that read nothing yet: their 4 MiB hits stay in progress.
                let sockets = try ranges.map { range in
                    try RawHTTP.start(
                        port: gateway.port, target: target,
                        headers: ["Range": "bytes=\(range.lowerBound)-\(range.upperBound)"], receiveBuffer: 16 << 10)
                }
                try await Task.sleep(for: .milliseconds(300))
                // The one descriptor of the file is the store's shared handle; `sendfile` would add one per hit, for
                // as long as the hits wait. The store may still be writing or syncing the warm-up's last chunk
                // through a descriptor of its own for a moment (seen once in CI).
                var open = 0
                _ = await Poll.value(within: .seconds(5), every: .milliseconds(50)) { () -> Bool? in
                    open = ProcessProbe.descriptors(of: getpid()).filter { $0.target == dataFile }.count
                    return open == 1 ? true : nil
                }
                #expect(open == 1, "\(open) descriptors of the data file with \(Self.clients) hits in progress")

                let results = try await concurrentMap(Array(zip(sockets, ranges)), width: Self.clients) { pair in
                    try await onOwnThread { try RawHTTP.finish(pair.0) }
                }
                for (result, range) in zip(results, ranges) {
                    #expect(result.status == 206 && result.header("X-Cache") == "HIT")
                    #expect(
                        result.body.firstDifference(from: data[Int(range.lowerBound)...Int(range.upperBound)]) == nil,
                        "bytes=\(range.lowerBound)-\(range.upperBound): \(result.body.count) bytes")
                }
            }
        }
    }
}
