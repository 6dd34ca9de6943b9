import Foundation
import SluiceTestSupport
import Testing

extension CacheTests {
    /// Issue 3, seeking: random reads of a cold 1 GiB file fetch only what they touch (plus readahead), and
    /// reading them again is served from the cache without asking the upstream anything.
    @Suite struct Seeking {
        static let fileSize: Int64 = 1 << 30
        static let chunkSize: Int64 = 1 << 20
        static let readahead: Int64 = 1 << 20
        static let readSize: Int64 = 64 << 10
        static let reads = 64

        @Test(.timeLimit(.minutes(3)))
        func randomReadsFetchTouchedChunksOnceThenHit() async throws {
            let seed = UInt64(Date().timeIntervalSince1970 * 1000)
            print("cache seeking: seed \(seed)")
            var generator = SeededGenerator(seed: seed)
            let offsets = (0..<Self.reads).map { _ in
                Int64.random(in: 0...(Self.fileSize - Self.readSize), using: &generator)
            }
            var touched = Set<Int64>()
            for offset in offsets {
                touched.formUnion((offset / Self.chunkSize)...((offset + Self.readSize - 1) / Self.chunkSize))
            }

            let content = try TemporaryDirectory()
            let path = content.file("big.bin")
            let began = ContinuousClock.now
            try Self.writeSparseFile(path, randomChunks: touched.union(touched.map { $0 + 1 }))
            print("cache seeking: wrote the 1 GiB origin file in \(ContinuousClock.now - began)")
            let origin = try await Peer.faultOrigin(root: content.path)
            defer { origin.stop() }
            let cache = try TemporaryDirectory()
            let settings = CacheFixture.Settings(
                directory: cache.file("cache"), chunkSize: Self.chunkSize, readahead: Self.readahead)
            try await CacheFixture.withGateway(origin, settings) { gateway in
                try await origin.resetStats()
                for offset in offsets {
                    let response = try await Self.read(offset, gateway: gateway, path: path)
                    #expect(response.status == 206)
                    #expect(response.exact, "offset \(offset): \(response.summary)")
                }
                let first = try await CacheFixture.settledStats(origin)
                let bound = Int64(touched.count) * Self.chunkSize + Int64(Self.reads) * Self.readahead
                print(
                    "cache seeking: first pass fetched \(CacheFixture.mebibytes(Int64(first.bytes))) "
                        + "in \(first.requests) requests; touched \(touched.count) chunks, bound \(CacheFixture.mebibytes(bound))"
                )
                #expect(Int64(first.bytes) <= bound)

                for offset in offsets {
                    let response = try await Self.read(offset, gateway: gateway, path: path)
                    #expect(response.status == 206)
                    #expect(
                        response.header("X-Cache") == "HIT",
                        "offset \(offset): chunk \(offset / Self.chunkSize) was not kept")
                    #expect(response.exact, "offset \(offset): \(response.summary)")
                }
                let second = try await CacheFixture.settledStats(origin)
                #expect(
                    second.requests == first.requests,
                    "the second pass asked the upstream \(second.requests - first.requests) times")
                #expect(second.bytes == first.bytes)
            }
        }

        private static func read(_ offset: Int64, gateway: TestGateway, path: String) async throws -> StreamedResponse {
            try await CacheStreamClient.get(
                port: gateway.port, target: CacheFixture.target("big.bin"),
                headers: ["Range": "bytes=\(offset)-\(offset + readSize - 1)"], expected: .file(path, offset: offset))
        }

        /// A sparse 1 GiB file whose `randomChunks` hold random bytes (the rest reads as zeros): every byte a read
        /// or its readahead can touch is random, and generating it takes a fraction of writing 1 GiB.
        private static func writeSparseFile(_ path: String, randomChunks: Set<Int64>) throws {
            let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            guard descriptor >= 0 else { throw PeerError("cannot create \(path): errno \(errno)") }
            defer { close(descriptor) }
            guard ftruncate(descriptor, off_t(fileSize)) == 0 else { throw PeerError("ftruncate: errno \(errno)") }
            for chunk in randomChunks.sorted() where chunk * chunkSize < fileSize {
                let bytes = RandomData.bytes(Int(chunkSize))
                let written = bytes.withUnsafeBytes {
                    pwrite(descriptor, $0.baseAddress, $0.count, off_t(chunk * chunkSize))
                }
                guard written == bytes.count else { throw PeerError("pwrite: errno \(errno)") }
            }
        }
    }
}
