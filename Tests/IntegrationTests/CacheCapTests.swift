import Foundation
import SluiceTestSupport
import Testing

extension CacheTests {
    /// Issue 3, cap: streaming three times `maxSize` keeps allocated disk use under the cap (plus a chunk per
    /// fetch in flight), and a file twice the cap still plays byte-exact.
    @Suite struct Cap {
        static let maxSize: Int64 = 48 << 20
        static let chunkSize: Int64 = 1 << 20
        static let fileSize = 16 << 20
        /// 3 x maxSize of distinct files, read `concurrent` at a time.
        static let files = 9
        static let concurrent = 3
        /// One chunk for each of up to 16 fills in flight.
        static let slack: Int64 = 16 << 20
        /// Per-connection rate of the origin's `/slow/` prefix, so that the 100 ms samples see every stage of a fill.
        static let slowRate = 16 << 20

        @Test(.timeLimit(.minutes(3)))
        func diskUseStaysUnderTheCapAndABiggerFilePlays() async throws {
            let content = try TemporaryDirectory()
            let data = try await concurrentMap(Array(0..<Self.files), width: 2) { index in
                try await RandomData.file("c\(index).bin", in: content, count: Self.fileSize)
            }
            let big = try await RandomData.file("big.bin", in: content, count: Int(2 * Self.maxSize))
            let origin = try await Peer.faultOrigin(root: content.path, options: ["--slow-rate", "\(Self.slowRate)"])
            defer { origin.stop() }
            let cache = try TemporaryDirectory()
            let directory = cache.file("cache")
            let settings = CacheFixture.Settings(directory: directory, maxSize: Self.maxSize, chunkSize: Self.chunkSize)
            let sampler = CacheDiskUsage.Sampler(path: directory)
            defer { sampler.stop() }

            try await CacheFixture.withGateway(origin, settings, prefix: "slow/") { gateway in
                for batch in stride(from: 0, to: Self.files, by: Self.concurrent) {
                    try await withThrowingTaskGroup(of: (Int, StreamedResponse).self) { group in
                        for index in batch..<min(batch + Self.concurrent, Self.files) {
                            group.addTask {
                                (
                                    index,
                                    try await CacheStreamClient.get(
                                        port: gateway.port, target: CacheFixture.target("c\(index).bin"),
                                        expected: .bytes(data[index], offset: 0))
                                )
                            }
                        }
                        for try await (index, response) in group {
                            #expect(response.status == 200, "c\(index).bin")
                            #expect(response.exact, "c\(index).bin: \(response.summary)")
                        }
                    }
                }
                let streamed = sampler.stop()
                print(
                    "cache cap: streamed \(CacheFixture.mebibytes(Int64(Self.files * Self.fileSize))) under a "
                        + "\(CacheFixture.mebibytes(Self.maxSize)) cap; "
                        + "peak allocated \(CacheFixture.mebibytes(streamed.peak)) "
                        + "over \(streamed.samples) samples")
                #expect(streamed.samples > 5)
                #expect(streamed.peak <= Self.maxSize + Self.slack)

                let bigSampler = CacheDiskUsage.Sampler(path: directory)
                defer { bigSampler.stop() }
                let whole = try await CacheStreamClient.get(
                    port: gateway.port, target: CacheFixture.target("big.bin"), expected: .bytes(big, offset: 0))
                #expect(whole.status == 200)
                #expect(whole.exact, "big.bin: \(whole.summary)")
                var generator = SeededGenerator(seed: 0xCA9)
                for _ in 0..<4 {
                    let first = Int.random(in: 0..<big.count, using: &generator)
                    let last = min(big.count - 1, first + Int.random(in: 1...(12 << 20), using: &generator))
                    let seek = try await CacheStreamClient.get(
                        port: gateway.port, target: CacheFixture.target("big.bin"),
                        headers: ["Range": "bytes=\(first)-\(last)"],
                        expected: .bytes(big, offset: Int64(first)))
                    #expect(seek.status == 206)
                    #expect(seek.contentLength == Int64(last - first + 1))
                    #expect(seek.exact, "big.bin \(first)-\(last): \(seek.summary)")
                }
                let played = bigSampler.stop()
                print(
                    "cache cap: a \(CacheFixture.mebibytes(2 * Self.maxSize)) file played; "
                        + "peak allocated \(CacheFixture.mebibytes(played.peak))")
                #expect(played.peak <= Self.maxSize + Self.slack)
            }
        }
    }
}
