import Foundation
import SluiceTestSupport
import Testing

extension CacheTests {
    /// Issue 3, coalescing: sixteen readers of one cold file share the upstream fetches.
    @Suite struct Coalescing {
        static let fileSize = 64 << 20
        static let readers = 16

        @Test(.timeLimit(.minutes(3)))
        func sixteenReadersFromByteZeroFetchTheFileOnce() async throws {
            try await Self.run(offsets: Array(repeating: 0, count: Self.readers), label: "16 readers from byte 0")
        }

        @Test(.timeLimit(.minutes(3)))
        func sixteenReadersFromSixteenOffsetsFetchTheFileOnce() async throws {
            // Spread over the file, none chunk aligned, in shuffled order so later offsets are asked for first too.
            var generator = SeededGenerator(seed: 0x5EED_C0A1)
            let step = Self.fileSize / Self.readers
            let offsets = (0..<Self.readers).map { $0 * step + Int.random(in: 1..<step, using: &generator) }
                .shuffled(using: &generator)
            try await Self.run(offsets: offsets, label: "16 readers from 16 offsets")
        }

        /// All readers start at once, each reading from its offset to the end; every byte is compared and the
        /// origin's body bytes stay within 2% of the file size.
        private static func run(offsets: [Int], label: String) async throws {
            let content = try TemporaryDirectory()
            let data = try await RandomData.file("movie.bin", in: content, count: fileSize)
            let origin = try await Peer.faultOrigin(root: content.path)
            defer { origin.stop() }
            let cache = try TemporaryDirectory()
            try await CacheFixture.withGateway(origin, .init(directory: cache.file("cache"))) { gateway in
                try await origin.resetStats()
                let responses = try await withThrowingTaskGroup(of: (Int, StreamedResponse).self) { group in
                    for offset in offsets {
                        group.addTask {
                            let response = try await CacheStreamClient.get(
                                port: gateway.port, target: CacheFixture.target("movie.bin"),
                                headers: offset > 0 ? ["Range": "bytes=\(offset)-"] : [:],
                                expected: .bytes(data, offset: Int64(offset)))
                            return (offset, response)
                        }
                    }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                for (offset, response) in responses {
                    #expect(response.status == (offset > 0 ? 206 : 200), "offset \(offset)")
                    #expect(response.contentLength == Int64(fileSize - offset), "offset \(offset)")
                    #expect(response.exact, "offset \(offset): \(response.summary)")
                }
                let stats = try await CacheFixture.settledStats(origin)
                let ratio = Double(stats.bytes) / Double(fileSize)
                print(
                    "cache coalescing (\(label)): origin sent \(stats.bytes) body bytes "
                        + "in \(stats.requests) requests = "
                        + "\(String(format: "%.4f", ratio)) x the file size")
                #expect(
                    Double(stats.bytes) <= 1.02 * Double(fileSize),
                    "origin sent \(stats.bytes) bytes for a \(fileSize)-byte file")
            }
        }
    }
}
