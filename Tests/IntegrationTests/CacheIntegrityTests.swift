import Foundation
import SluiceCache
import SluiceCore
import SluiceTestSupport
import Testing

extension CacheTests {
    /// Issue 3, bad input: bytes flipped in a data file are found by `verify` and by the background scrub, the bad
    /// chunk is dropped, and the next read fetches it again and plays byte-exact.
    @Suite struct Integrity {
        static let fileSize = 8 << 20
        static let chunkSize: Int64 = 1 << 20
        static let path = "clip.bin"

        @Test(.timeLimit(.minutes(2)))
        func verifyFindsAFlippedChunkWhichIsRefetched() async throws {
            try await Self.scenario(chunk: 3, label: "verify") { store in try store.verify(dropBad: true) }
        }

        @Test(.timeLimit(.minutes(2)))
        func scrubFindsAFlippedChunkWhichIsRefetched() async throws {
            try await Self.scenario(chunk: 6, label: "scrub") { store in try store.scrub(bytes: 64 << 20) }
        }

        /// A data file truncated behind the gateway's back (by hand, or a failing disk): a hit on the lost bytes ends
        /// early, small or large (the kernel's copy from the file's mapping fails), and the gateway goes on serving
        /// what is left. The gateway runs in this process: a fault on the mapping that
        /// reached the process, rather than failing the send, would end the test run.
        @Test(.timeLimit(.minutes(2)))
        func truncatedDataFileCutsHitsShortWithoutHarmingTheProcess() async throws {
            let scene = try await Scene()
            defer { scene.origin.stop() }
            let end = Int64(Self.fileSize) - 1
            let lost = [(end - (64 << 10) + 1)...end, (end - (2 << 20) + 1)...end]
            try await CacheFixture.withGateway(scene.origin, scene.settings) { gateway in
                func get(_ range: ClosedRange<Int64>) async throws -> StreamedResponse {
                    try await CacheStreamClient.get(
                        port: gateway.port, target: CacheFixture.target(Self.path),
                        headers: ["Range": "bytes=\(range.lowerBound)-\(range.upperBound)"],
                        expected: .bytes(scene.data, offset: range.lowerBound), timeoutSeconds: 3)
                }
                let warm = try await scene.get(port: gateway.port)
                #expect(warm.exact)
                for range in lost {
                    // The warm-up's last chunk may still be on its way to the store when its bytes reached the reader.
                    let hit = try await Poll.value(within: .seconds(10), every: .milliseconds(50)) {
                        let response = try await get(range)
                        return response.header("X-Cache") == "HIT" ? response : nil
                    }
                    #expect(hit?.exact == true, "\(range): \(hit?.summary ?? "never a hit")")
                }
                guard truncate(scene.dataFile, off_t(Self.fileSize / 2)) == 0 else {
                    throw PeerError("truncate: errno \(errno)")
                }
                for range in lost {
                    // No head at all (the copy fails before any byte) or a body that stops (it fails part-way, and
                    // the connection closes) is a cut response.
                    let cut = try? await get(range)
                    #expect(cut.map { !$0.complete } ?? true, "\(range): \(cut?.summary ?? "no response")")
                }
                let kept = try await get(0...(64 << 10) - 1)
                #expect(kept.exact && kept.header("X-Cache") == "HIT", "\(kept.summary)")
            }
        }

        /// A data file removed while the gateway was stopped (by hand): its chunks, still listed in the index, are
        /// dropped on the first read, which fetches the file again. Each read was once cut short instead, its fills
        /// told to read the store that had just refused it.
        @Test(.timeLimit(.minutes(2)))
        func removedDataFileIsFetchedAgain() async throws {
            let scene = try await Scene()
            defer { scene.origin.stop() }
            try await scene.warm()
            try FileManager.default.removeItem(atPath: scene.dataFile)

            try await scene.origin.resetStats()
            try await CacheFixture.withGateway(scene.origin, scene.settings) { gateway in
                let refetched = try await scene.get(port: gateway.port)
                #expect(refetched.status == 200 && refetched.exact, "\(refetched.summary)")
                // The scrub that starts with the gateway may have dropped some of the chunks first (it finds the file
                // gone too); the read drops the others.
                #expect(["MISS", "PARTIAL"].contains(refetched.header("X-Cache")), "\(refetched.summary)")
                // The first read's last chunk may still be on its way to the store when its bytes reached the reader.
                let hit = try await Poll.value(within: .seconds(10), every: .milliseconds(50)) {
                    let response = try await scene.get(port: gateway.port)
                    return response.header("X-Cache") == "HIT" ? response : nil
                }
                #expect(hit?.exact == true, "\(hit?.summary ?? "never a hit")")
            }
            #expect(Int64(try await CacheFixture.settledStats(scene.origin).bytes) == Int64(Self.fileSize))
        }

        /// Warms the file, stops the gateway, flips bytes in the middle of `chunk`, runs `check` on the store (the
        /// gateway stopped, as `sluice cache verify --dir` would), restarts, and reads the file again.
        private static func scenario(
            chunk: Int64, label: String, check: (ChunkStore) throws -> VerifyReport
        ) async throws {
            let scene = try await Scene()
            defer { scene.origin.stop() }
            try await scene.warm()
            try flip(scene.dataFile, at: chunk * chunkSize + chunkSize / 2, count: 16)

            let store = try ChunkStore(
                options: CacheOptions(
                    directory: scene.settings.directory, maxSize: scene.settings.maxSize, chunkSize: chunkSize),
                logger: Logger(level: .error) { _ in })
            let report: VerifyReport
            do {
                report = try check(store)
                store.close()
            } catch {
                store.close()
                throw error
            }
            print(
                "cache integrity (\(label)): checked \(report.chunksChecked) chunks, "
                    + "bad \(report.bad.map(\.index)), dropped \(report.dropped)")
            #expect(report.bad == [VerifyReport.BadChunk(assetID: CacheFixture.assetID(path), index: chunk)])
            #expect(report.dropped == 1)
            #expect(report.chunksChecked == fileSize / Int(chunkSize))

            try await scene.origin.resetStats()
            try await CacheFixture.withGateway(scene.origin, scene.settings) { gateway in
                let again = try await scene.get(port: gateway.port)
                #expect(again.status == 200)
                #expect(again.header("X-Cache") == "PARTIAL")
                #expect(again.exact, "\(again.summary)")
            }
            let refetched = Int64(try await CacheFixture.settledStats(scene.origin).bytes)
            print("cache integrity (\(label)): the read after the drop fetched \(refetched) bytes")
            #expect(refetched >= chunkSize && refetched <= 2 * chunkSize)
        }

        /// The test file behind a fault origin, and cache settings in a folder of their own; both folders are
        /// removed with this value, the origin is stopped by the test.
        private struct Scene {
            let data: [UInt8]
            let origin: Peer
            let settings: CacheFixture.Settings
            private let folders: [TemporaryDirectory]

            init() async throws {
                let content = try TemporaryDirectory()
                let cache = try TemporaryDirectory()
                data = try await RandomData.file(Integrity.path, in: content, count: Integrity.fileSize)
                origin = try await Peer.faultOrigin(root: content.path)
                settings = CacheFixture.Settings(directory: cache.file("cache"), chunkSize: Integrity.chunkSize)
                folders = [content, cache]
            }

            /// The cache's data file of the test file.
            var dataFile: String { CacheFixture.dataFile(of: Integrity.path, in: settings.directory) }

            /// The whole file, read through the gateway on `port` and compared with the origin's bytes.
            func get(port: Int) async throws -> StreamedResponse {
                try await CacheStreamClient.get(
                    port: port, target: CacheFixture.target(Integrity.path), expected: .bytes(data, offset: 0))
            }

            /// Reads the whole file through a gateway that then stops, leaving it in the cache.
            func warm() async throws {
                try await CacheFixture.withGateway(origin, settings) { gateway in
                    let warm = try await get(port: gateway.port)
                    #expect(warm.exact)
                }
            }
        }

        /// Inverts `count` bytes of `file` at `offset`.
        private static func flip(_ file: String, at offset: Int64, count: Int) throws {
            let descriptor = open(file, O_RDWR)
            guard descriptor >= 0 else { throw PeerError("cannot open \(file): errno \(errno)") }
            defer { close(descriptor) }
            var bytes = [UInt8](repeating: 0, count: count)
            guard bytes.withUnsafeMutableBytes({ pread(descriptor, $0.baseAddress, count, off_t(offset)) }) == count
            else {
                throw PeerError("short read of \(file)")
            }
            bytes = bytes.map { ~$0 }
            guard bytes.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, count, off_t(offset)) }) == count else {
                throw PeerError("short write to \(file)")
            }
        }
    }
}
