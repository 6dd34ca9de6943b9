import Foundation
import SluiceGateway
import SluiceTestSupport
import Testing

extension CacheTests {
    /// Issue 32, tampering with an encrypted cache while the gateway is stopped: a flipped byte, two swapped sealed
    /// segments of a chunk, two swapped chunk slots and a truncated data file are each detected (counted in
    /// `/metrics`), the damaged chunks fetched again, and the client gets byte-exact data.
    @Suite struct EncryptedTamper {
        static let chunkSize: Int64 = 256 << 10
        /// Four chunks of four sealed segments each.
        static let fileSize = 1 << 20
        /// One sealed segment: 64 KiB and its 16-byte tag.
        static let storedSegment: Int64 = (64 << 10) + 16
        /// A sealed chunk in its slot, and the slot: rounded up to whole 4 KiB blocks.
        static let storedChunk = chunkSize + chunkSize / (64 << 10) * 16
        static let slot = (storedChunk + 4095) / 4096 * 4096

        enum Tamper: String, CaseIterable {
            case flippedByte, swappedSegments, swappedChunks, truncatedFile

            /// The chunks it damages.
            var chunks: ClosedRange<Int64> {
                switch self {
                case .flippedByte: 1...1
                case .swappedSegments: 2...2
                case .swappedChunks: 1...2
                case .truncatedFile: 2...3
                }
            }

            /// Does it to `file`, a data file of four sealed chunks.
            func apply(to file: String) throws {
                switch self {
                case .flippedByte:
                    let at = slot + 2 * storedSegment + 1000
                    try RawFile.write(RawFile.read(file, at: at, count: 1).map { ~$0 }, to: file, at: at)
                case .swappedSegments:
                    try RawFile.swap(file, at: 2 * slot, and: 2 * slot + storedSegment, count: Int(storedSegment))
                case .swappedChunks:
                    try RawFile.swap(file, at: slot, and: 2 * slot, count: Int(storedChunk))
                case .truncatedFile:
                    guard truncate(file, off_t(2 * slot + slot / 2)) == 0 else {
                        throw PeerError("truncate \(file): errno \(errno)")
                    }
                }
            }
        }

        @Test(.timeLimit(.minutes(2)))
        func eachTamperingIsDetectedCountedAndRefetched() async throws {
            // One file per tampering and an untouched one. Readahead off: a read fetches only what it lacks.
            let names = Tamper.allCases.map { "\($0.rawValue).bin" } + ["untouched.bin"]
            let cache = try await EncryptedCache(
                files: names.map { ($0, Self.fileSize) }, chunkSize: Self.chunkSize, readahead: 0)
            defer { cache.origin.stop() }
            // The data file names come from keyed hashes of the asset IDs: each file's is the one its warming adds.
            var dataFiles: [String] = []
            try await cache.run("a") { gateway in
                for index in cache.files.indices {
                    let warm = try await cache.get(gateway, index)
                    #expect(warm.exact, "\(warm.summary)")
                    #expect(try await cache.untilHit(gateway, index) != nil, "\(names[index]) never a hit")
                    let added = Set(Self.dataFiles(in: cache.plain.directory)).subtracting(dataFiles)
                    try #require(added.count == 1, "\(names[index]) added \(added)")
                    dataFiles.append(added.first!)
                }
            }
            for (tamper, file) in zip(Tamper.allCases, dataFiles) {
                #expect(try RawFile.size(file) == 3 * Self.slot + Self.storedChunk, "\(file)")
                try tamper.apply(to: file)
            }

            try await cache.origin.resetStats()
            try await cache.run("a") { gateway in
                for (index, tamper) in Tamper.allCases.enumerated() {
                    let chunks = tamper.chunks
                    let range = (chunks.lowerBound * Self.chunkSize)...((chunks.upperBound + 1) * Self.chunkSize - 1)
                    let response = try await cache.get(gateway, index, range: range)
                    #expect(response.status == 206 && response.exact, "\(tamper): \(response.summary)")
                    #expect(response.header("X-Cache") != "HIT", "\(tamper): the damaged chunks were served as hits")
                    let fetched = try await CacheFixture.settledStats(cache.origin).recent.filter {
                        $0.method == "GET" && $0.path == "/\(names[index])"
                    }
                    #expect(
                        Self.covered(fetched.compactMap(\.range))?.contains(range) == true,
                        "\(tamper): the origin was asked for \(fetched.map { $0.range ?? "all" }), not all of \(range)")
                    let repaired = try await cache.untilHit(gateway, index)
                    #expect(repaired?.exact == true, "\(tamper): never a hit again")
                }
                let untouched = try await cache.get(gateway, Tamper.allCases.count)
                #expect(untouched.exact && untouched.header("X-Cache") == "HIT", "\(untouched.summary)")
                // The scrub that runs as the gateway starts may find the damage before the reads do; either counts.
                let damaged = Tamper.allCases.reduce(0) { $0 + $1.chunks.count }
                let corrupt = try await EncryptedCache.corruptEvictions(gateway)
                print("cache encrypted tamper: \(corrupt) corrupt chunks dropped of \(damaged) damaged")
                #expect(corrupt == damaged)
            }
            let stats = try await CacheFixture.settledStats(cache.origin)
            #expect(stats.requestsByPath["/untouched.bin"] == nil, "the untouched file was fetched again")
            let damagedBytes = Tamper.allCases.reduce(0) { $0 + Int64($1.chunks.count) * Self.chunkSize }
            #expect(Int64(stats.bytes) == damagedBytes, "fetched \(stats.bytes) bytes for \(damagedBytes) damaged")
        }

        /// The same on the read path alone: a chunk damaged under a running gateway, after its start-up scrub, fails
        /// its tag in the middle of a whole-file hit, which still reaches the client byte-exact. Decrypted segments
        /// kept in memory would be served instead of the damaged ones, so the file is 8 times the decrypted memory and
        /// is read whole as a hit before the damage: what memory then holds is from the file's end.
        @Test(.timeLimit(.minutes(2)))
        func aChunkDamagedUnderARunningGatewayIsRefetchedMidStream() async throws {
            let cache = try await EncryptedCache(
                files: [("live.bin", 8 << 20)], chunkSize: Self.chunkSize, readahead: 0, decryptedMemory: 1 << 20)
            defer { cache.origin.stop() }
            try await cache.run("a") { gateway in
                let warm = try await cache.get(gateway, 0)
                #expect(warm.status == 200 && warm.exact, "\(warm.summary)")
                let stored = try await Poll.value(within: .seconds(10), every: .milliseconds(50)) {
                    let page = try AdminJSON.decode(
                        AdminAssetPage.self,
                        from: try await EncryptedCache.admin(gateway, "GET", "/admin/cache/assets").body)
                    return page.assets.first?.cachedBytes == Int64(8 << 20) ? true : nil
                }
                try #require(stored == true, "the fill never stored the whole file")
                try #require(try await cache.untilHit(gateway, 0)?.exact == true)
                let file = try #require(Self.dataFiles(in: cache.plain.directory).first)
                try Tamper.flippedByte.apply(to: file)

                try await cache.origin.resetStats()
                let read = try await cache.get(gateway, 0)
                #expect(read.status == 200 && read.exact, "\(read.summary)")
                #expect(try await EncryptedCache.corruptEvictions(gateway) == 1)
                let fetched = try await CacheFixture.settledStats(cache.origin)
                print("cache encrypted tamper (live): the read fetched \(fetched.recent.map { $0.range ?? "all" })")
                #expect(
                    Self.covered(fetched.recent.compactMap(\.range))?.contains(
                        Self.chunkSize...(2 * Self.chunkSize - 1))
                        == true)
                #expect(Int64(fetched.bytes) == Self.chunkSize, "fetched \(fetched.bytes) bytes")
                #expect(try await cache.untilHit(gateway, 0)?.exact == true)
            }
        }

        /// The data files under `directory`.
        private static func dataFiles(in directory: String) -> [String] {
            (try? RawFolderScan(directory + "/data").files.filter { $0.hasSuffix(".dat") }) ?? []
        }

        /// The bytes covered by `ranges` (`bytes=FIRST-LAST` fields), when they form one range; nil without any.
        private static func covered(_ ranges: [String]) -> ClosedRange<Int64>? {
            let parsed = ranges.compactMap { text -> ClosedRange<Int64>? in
                let bounds = text.dropFirst("bytes=".count).split(separator: "-").compactMap { Int64($0) }
                return bounds.count == 2 ? bounds[0]...bounds[1] : nil
            }.sorted { $0.lowerBound < $1.lowerBound }
            guard var union = parsed.first else { return nil }
            for range in parsed.dropFirst() where range.lowerBound <= union.upperBound + 1 {
                union = union.lowerBound...max(union.upperBound, range.upperBound)
            }
            return union
        }
    }
}
