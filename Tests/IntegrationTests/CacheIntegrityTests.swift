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
            let content = try TemporaryDirectory()
            let data = try await RandomData.file(Self.path, in: content, count: Self.fileSize)
            let origin = try await Peer.faultOrigin(root: content.path)
            defer { origin.stop() }
            let cache = try TemporaryDirectory()
            let settings = CacheFixture.Settings(directory: cache.file("cache"), chunkSize: Self.chunkSize)
            let dataFile = CacheFixture.dataFile(of: Self.path, in: settings.directory)
            let end = Int64(Self.fileSize) - 1
            let lost = [(end - (64 << 10) + 1)...end, (end - (2 << 20) + 1)...end]
            try await CacheFixture.withGateway(origin, settings) { gateway in
                func get(_ range: ClosedRange<Int64>) async throws -> StreamedResponse {
                    try await CacheStreamClient.get(
                        port: gateway.port, target: CacheFixture.target(Self.path),
                        headers: ["Range": "bytes=\(range.lowerBound)-\(range.upperBound)"],
                        expected: .bytes(data, offset: range.lowerBound), timeoutSeconds: 3)
                }
                let warm = try await CacheStreamClient.get(
                    port: gateway.port, target: CacheFixture.target(Self.path), expected: .bytes(data, offset: 0))
                #expect(warm.exact)
                for range in lost {
                    // The warm-up's last chunk may still be on its way to the store when its bytes reached the reader.
                    let hit = try await Poll.value(within: .seconds(10), every: .milliseconds(50)) {
                        let response = try await get(range)
                        return response.header("X-Cache") == "HIT" ? response : nil
                    }
                    #expect(hit?.exact == true, "\(range): \(hit?.summary ?? "never a hit")")
                }
                guard truncate(dataFile, off_t(Self.fileSize / 2)) == 0 else {
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

        /// Warms the file, stops the gateway, flips bytes in the middle of `chunk`, runs `check` on the store (the
        /// gateway stopped, as `sluice cache verify --dir` would), restarts, and reads the file again.
        private static func scenario(
            chunk: Int64, label: String, check: (ChunkStore) throws -> VerifyReport
        ) async throws {
            let content = try TemporaryDirectory()
            let data = try await RandomData.file(path, in: content, count: fileSize)
            let origin = try await Peer.faultOrigin(root: content.path)
            defer { origin.stop() }
            let cache = try TemporaryDirectory()
            let settings = CacheFixture.Settings(directory: cache.file("cache"), chunkSize: chunkSize)
            try await CacheFixture.withGateway(origin, settings) { gateway in
                let warm = try await CacheStreamClient.get(
                    port: gateway.port, target: CacheFixture.target(path), expected: .bytes(data, offset: 0))
                #expect(warm.exact)
            }

            let dataFile = CacheFixture.dataFile(of: path, in: settings.directory)
            try flip(dataFile, at: chunk * chunkSize + chunkSize / 2, count: 16)

            let store = try ChunkStore(
                options: CacheOptions(directory: settings.directory, maxSize: settings.maxSize, chunkSize: chunkSize),
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

            try await origin.resetStats()
            try await CacheFixture.withGateway(origin, settings) { gateway in
                let again = try await CacheStreamClient.get(
                    port: gateway.port, target: CacheFixture.target(path), expected: .bytes(data, offset: 0))
                #expect(again.status == 200)
                #expect(again.header("X-Cache") == "PARTIAL")
                #expect(again.exact, "\(again.summary)")
            }
            let refetched = Int64(try await CacheFixture.settledStats(origin).bytes)
            print("cache integrity (\(label)): the read after the drop fetched \(refetched) bytes")
            #expect(refetched >= chunkSize && refetched <= 2 * chunkSize)
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
