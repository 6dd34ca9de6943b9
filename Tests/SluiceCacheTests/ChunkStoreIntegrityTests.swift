import Foundation
import Glibc
import SluiceCore
import Testing

@testable import SluiceCache

@Suite(.ownThread) struct ChunkStoreIntegrityTests {
    static let chunk: Int64 = 64 << 10

    /// Flips one byte of a data file in place.
    func flipByte(in path: String, at offset: Int64) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        let byte = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: [byte ^ 0x5A])
    }

    @Test(arguments: [false, true])
    func verifyFindsAndDropsExactlyTheFlippedChunk(encrypted: Bool) throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let key = encrypted ? [UInt8](repeating: 5, count: 32) : nil
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk, key: key))
        defer { store.close() }
        try store.fill("nas://a", length: Self.chunk * 3, chunks: [0, 1, 2])
        try store.fill("nas://b", length: Self.chunk, chunks: [0])
        store.flush()
        let clean = try store.verify(dropBad: false)
        #expect(clean.bad.isEmpty)
        #expect(clean.chunksChecked == 4)
        #expect(clean.assetsChecked == 2)

        let file =
            fixture.directory + "/data/" + store.storageKey(for: "nas://a").text.prefix(2) + "/"
            + store.storageKey(for: "nas://a").text + ".dat"
        let slot = encrypted ? Self.chunk + 4096 : Self.chunk
        try flipByte(in: file, at: slot + 100)

        let report = try store.verify(dropBad: false)
        #expect(report.bad == [VerifyReport.BadChunk(assetID: "nas://a", index: 1)])
        #expect(report.dropped == 0)
        #expect(try store.entry(for: "nas://a")?.chunks == ChunkSet([0, 1, 2]))

        let dropping = try store.verify(dropBad: true)
        #expect(dropping.bad.count == 1 && dropping.dropped == 1)
        #expect(try store.entry(for: "nas://a")?.chunks == ChunkSet([0, 2]))
        #expect(try store.verify(dropBad: false).bad.isEmpty)
        #expect(try store.stats().evictions[.corrupt] == 1)
    }

    @Test func badTagOnReadDropsTheChunk() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk, key: [UInt8](repeating: 5, count: 32)))
        defer { store.close() }
        try store.fill("nas://a", length: Self.chunk * 2, chunks: [0, 1])
        store.flush()
        let file = try #require(fixture.dataFiles().first)
        try flipByte(in: file, at: Self.chunk + 4096 + 20)
        #expect(throws: CacheError.corrupt(index: 1)) {
            try store.read(ByteRange(first: 0, last: Self.chunk * 2 - 1), of: "nas://a", validator: "\"v1\"")
        }
        #expect(try store.entry(for: "nas://a")?.chunks == ChunkSet([0]))
        #expect(
            try store.read(ByteRange(first: 0, last: 9), of: "nas://a", validator: "\"v1\"")
                == Array(chunkBytes(0, count: 10)))
    }

    /// Once refused every read as not cached while the index listed its chunks, so each fill the reader started
    /// was told to read the store instead.
    @Test(arguments: [false, true])
    func chunksOfARemovedDataFileAreDroppedOnRead(encrypted: Bool) throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let options = fixture.options(chunkSize: Self.chunk, key: encrypted ? [UInt8](repeating: 5, count: 32) : nil)
        var store = try fixture.open(options)
        try store.fill("nas://a", length: Self.chunk * 2, chunks: [0, 1])
        store.close()
        try FileManager.default.removeItem(atPath: try #require(fixture.dataFiles().first))

        store = try fixture.open(options)
        defer { store.close() }
        let whole = ByteRange(first: 0, last: Self.chunk * 2 - 1)
        #expect(throws: CacheError.corrupt(index: 0)) { try store.read(whole, of: "nas://a", validator: "\"v1\"") }
        #expect(store.fileRegion(whole, of: "nas://a", validator: "\"v1\"") == nil)
        #expect(try store.entry(for: "nas://a")?.chunks == ChunkSet())
        #expect(try store.stats().evictions[.corrupt] == 2)
        #expect(try store.stats().diskBytes == fixture.allocatedBytes())

        try store.fill("nas://a", length: Self.chunk * 2, chunks: [1])
        #expect(
            try store.read(ByteRange(first: Self.chunk, last: Self.chunk + 9), of: "nas://a", validator: "\"v1\"")
                == Array(chunkBytes(1, count: 10)))
    }

    @Test func scrubWalksEverythingInBoundedSteps() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        for name in ["a", "b", "c"] { try store.fill("nas://\(name)", length: Self.chunk * 4, chunks: Array(0..<4)) }
        store.flush()
        let file =
            fixture.directory + "/data/" + store.storageKey(for: "nas://c").text.prefix(2) + "/"
            + store.storageKey(for: "nas://c").text + ".dat"
        try flipByte(in: file, at: 3 * Self.chunk + 1)

        var checked = 0
        var bad: [VerifyReport.BadChunk] = []
        for _ in 0..<6 {
            let step = try store.scrub(bytes: Self.chunk * 2)
            #expect(step.bytesChecked <= Self.chunk * 3)
            checked += step.chunksChecked
            bad += step.bad
        }
        #expect(checked >= 12)
        #expect(bad == [VerifyReport.BadChunk(assetID: "nas://c", index: 3)])
        #expect(try store.entry(for: "nas://c")?.chunks == ChunkSet(0..<3))
    }

    @Test func unreadableIndexIsMovedAsideAndRebuilt() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        var store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        try store.fill("nas://a", length: Self.chunk, chunks: [0])
        store.close()
        let garbage = Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 37) })
        try garbage.write(to: URL(fileURLWithPath: fixture.directory + "/index.sqlite"))
        try? FileManager.default.removeItem(atPath: fixture.directory + "/index.sqlite-wal")

        store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        let names = try FileManager.default.contentsOfDirectory(atPath: fixture.directory)
        #expect(names.contains { $0.hasPrefix("index.sqlite.corrupt-") })
        #expect(fixture.logLines.all.contains { $0.contains("warning") && $0.contains("moved aside") })
        #expect(try store.stats().entries == 0)
        #expect(try store.entry(for: "nas://a") == nil)
        try store.fill("nas://a", length: Self.chunk, chunks: [0])
        #expect(
            try store.read(ByteRange(first: 0, last: 9), of: "nas://a", validator: "\"v1\"")
                == Array(chunkBytes(0, count: 10)))
        // The old data directory is deleted in the background; then the accounting matches the disk,
        // the moved-aside index included.
        for _ in 0..<200
        where
            !((try? FileManager.default.contentsOfDirectory(atPath: fixture.directory + "/trash"))?
            .isEmpty ?? true)
        {
            usleep(10_000)
        }
        store.flush()
        #expect(try store.stats().diskBytes == fixture.allocatedBytes())
    }

    @Test func orphanFilesAreRemovedAndLeakedBlocksAccounted() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        var store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        try store.fill("nas://a", length: Self.chunk * 8, chunks: [0])
        store.close()
        let orphanKey = String(repeating: "ab", count: 32)
        try FileManager.default.createDirectory(
            atPath: fixture.directory + "/data/ab", withIntermediateDirectories: true)
        try Data(count: 10_000).write(to: URL(fileURLWithPath: fixture.directory + "/data/ab/\(orphanKey).dat"))
        // Bytes at chunk 5's slot that the index never listed: what a crash before a commit leaves.
        let file =
            fixture.directory + "/data/" + store.storageKey(for: "nas://a").text.prefix(2) + "/"
            + store.storageKey(for: "nas://a").text + ".dat"
        let handle = try #require(FileHandle(forUpdatingAtPath: file))
        try handle.seek(toOffset: UInt64(5 * Self.chunk))
        try handle.write(contentsOf: [UInt8](repeating: 1, count: Int(Self.chunk)))
        try handle.close()

        store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        #expect(try store.removeOrphans() == 1)
        #expect(!FileManager.default.fileExists(atPath: fixture.directory + "/data/ab/\(orphanKey).dat"))
        #expect(try store.stats().diskBytes == fixture.allocatedBytes())
        #expect(throws: CacheError.notCached) {
            try store.read(ByteRange(first: 5 * Self.chunk, last: 5 * Self.chunk), of: "nas://a", validator: "\"v1\"")
        }
    }

    @Test func openingAHundredThousandAssetsIsFast() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let options = fixture.options(maxSize: 1 << 40, chunkSize: 1 << 20)
        var store = try fixture.open(options)
        try store.state.withLock { state in
            try state.openIndex().database.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
                INSERT INTO assets(key, asset_id, length, content_type, etag, validator, fetched_at, last_access,
                    pinned, allocated)
                SELECT printf('%064x', i), 'nas://music/' || i || '.mp3', 5242880, 'audio/mpeg', '"e' || i || '"',
                    '"e' || i || '"', 1700000000, 1700000000 + i, 0, 5242880 FROM n;
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
                INSERT INTO chunks(asset_key, idx, size, crc32, written_at)
                SELECT printf('%064x', i), c.idx, 1048576, 0, 1700000000 FROM n,
                    (SELECT 0 AS idx UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4) AS c;
                """)
        }
        store.close()

        let clock = ContinuousClock()
        let start = clock.now
        store = try fixture.open(options)
        let elapsed = clock.now - start
        defer { store.close() }
        #expect(elapsed < .seconds(1), "opening 100,000 assets took \(elapsed)")
        let stats = try store.stats()
        #expect(stats.entries == 100_000)
        #expect(stats.diskBytes >= 100_000 * 5_242_880)
        #expect(try store.list(limit: 2, after: nil).entries.first?.chunks == ChunkSet(0..<5))
        #expect(!FileManager.default.fileExists(atPath: fixture.directory + "/data"), "no data directory was needed")
    }
}
