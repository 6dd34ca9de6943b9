import Foundation
import Glibc
import SluiceCore
import Testing

@testable import SluiceCache

/// The hit path answers from memory (``IndexMemo``, shared data file handles): these tests check that what it
/// remembers never outlives a change of the index or of the data file.
@Suite(.ownThread) struct ChunkStoreHitPathTests {
    static let chunk: Int64 = 64 << 10
    static let length = chunk * 3

    /// The bytes a file region refers to, read through a descriptor of its own and through the data file's
    /// mapping, which must agree (descriptor closed, lease released); `Data`, so that a failed comparison prints
    /// sizes rather than every byte.
    func bytes(of region: CacheFileRegion) -> Data {
        defer { region.lease.release() }
        guard let descriptor = region.openDescriptor() else { return Data() }
        defer { close(descriptor) }
        var out = [UInt8](repeating: 0, count: Int(region.count))
        let got = out.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, off_t(region.offset)) }
        guard got == out.count else { return Data() }
        let mapped = region.mapped.map { Data($0.bytes) }
        #expect(mapped == Data(out), "the mapping holds the bytes the descriptor reads")
        return Data(out)
    }

    @Test func chunksWrittenAfterTheFileWasMappedAreReadThroughTheMapping() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        let expected = objectBytes(length: Self.length, chunkSize: Self.chunk, seed: 4)
        try store.fill("nas://a", length: Self.length, chunks: [0], seed: 4)
        let first = ByteRange(first: 0, last: Self.chunk - 1)
        #expect(
            bytes(of: try #require(store.fileRegion(first, of: "nas://a", validator: "\"v1\"")))
                == Data(expected[..<Int(Self.chunk)]))
        // The file grows past the end it had when it was mapped; the same handle (and mapping) serves the new tail.
        try store.fill("nas://a", length: Self.length, chunks: [2], seed: 4)
        let last = ByteRange(first: 2 * Self.chunk + 100, last: Self.length - 1)
        do {
            let region = try #require(store.fileRegion(last, of: "nas://a", validator: "\"v1\""))
            #expect(region.mapped != nil)
            #expect(bytes(of: region) == Data(expected[Int(last.first)...]))
        }
        // /proc/self/maps is not read atomically: a line can be missed while other tests map and unmap files.
        #expect((0..<5).contains { _ in fixture.mappedDataFiles() == 1 }, "the store keeps the file mapped")
        store.close()
        #expect(fixture.mappedDataFiles() == 0, "closing the store unmaps its data files")
    }

    @Test func replacedVersionIsReadFromItsOwnFile() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        let all = ByteRange(first: 0, last: Self.length - 1)
        try store.fill("nas://a", length: Self.length, chunks: [0, 1, 2], seed: 1)
        #expect(
            Data(try store.read(all, of: "nas://a", validator: "\"v1\""))
                == Data(objectBytes(length: Self.length, chunkSize: Self.chunk, seed: 1)))
        let v1Region = try #require(store.fileRegion(all, of: "nas://a", validator: "\"v1\""))

        try store.fill("nas://a", length: Self.length, etag: "\"v2\"", chunks: [0, 2], seed: 2)
        let v2 = objectBytes(length: Self.length, chunkSize: Self.chunk, seed: 2)
        #expect(throws: CacheError.stale) { try store.read(all, of: "nas://a", validator: "\"v1\"") }
        #expect(store.fileRegion(all, of: "nas://a", validator: "\"v2\"") == nil, "chunk 1 of v2 is not cached")
        let first = ByteRange(first: 0, last: Self.chunk - 1)
        #expect(
            bytes(of: try #require(store.fileRegion(first, of: "nas://a", validator: "\"v2\"")))
                == Data(v2[..<Int(Self.chunk)]))
        // A reader that started on v1 keeps reading v1 from the unlinked file.
        #expect(bytes(of: v1Region) == Data(objectBytes(length: Self.length, chunkSize: Self.chunk, seed: 1)))
    }

    @Test func purgedThenRefilledAssetServesTheNewBytes() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        let all = ByteRange(first: 0, last: Self.length - 1)
        for seed: UInt8 in 1...3 {
            try store.fill("nas://a", length: Self.length, chunks: [0, 1, 2], seed: seed)
            let region = try #require(store.fileRegion(all, of: "nas://a", validator: "\"v1\""))
            #expect(bytes(of: region) == Data(objectBytes(length: Self.length, chunkSize: Self.chunk, seed: seed)))
            store.flush()
            try store.purge("nas://a")
            #expect(store.fileRegion(all, of: "nas://a", validator: "\"v1\"") == nil)
            #expect(try store.contentInfo(for: "nas://a") == nil)
        }
        try store.fill("nas://b", length: Self.length, chunks: [0, 1, 2], seed: 9)
        _ = try #require(store.fileRegion(all, of: "nas://b", validator: "\"v1\"")).lease.release()
        try store.purgeAll()
        #expect(store.fileRegion(all, of: "nas://b", validator: "\"v1\"") == nil)
    }

    @Test func droppedAndEvictedChunksAreNotServedFromMemory() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(maxSize: 2 << 20, chunkSize: Self.chunk))
        defer { store.close() }
        try store.fill("nas://old", length: Self.chunk * 8, chunks: Array(0..<8))
        store.flush()
        let tail = ByteRange(first: Self.chunk * 7, last: Self.chunk * 8 - 1)
        #expect(
            bytes(of: try #require(store.fileRegion(tail, of: "nas://old", validator: "\"v1\""))).count
                == Int(Self.chunk))
        try store.state.withLock { state throws(CacheError) in
            try state.dropChunk(CacheLayout(root: "").key(for: "nas://old"), 7, reason: .corrupt)
        }
        #expect(store.fileRegion(tail, of: "nas://old", validator: "\"v1\"") == nil)

        // Filling other assets past the cap trims "nas://old" from its tail.
        fixture.clock.advance(seconds: 60)
        for index in 0..<20 { try store.fill("nas://new\(index)", length: Self.chunk * 2, chunks: [0, 1]) }
        let remaining = try #require(try store.entry(for: "nas://old")).chunks
        #expect(remaining.count < 7)
        for index in 0..<Int64(8) {
            let range = ByteRange(first: index * Self.chunk, last: (index + 1) * Self.chunk - 1)
            let region = store.fileRegion(range, of: "nas://old", validator: "\"v1\"")
            #expect((region != nil) == remaining.contains(index), "chunk \(index)")
            region.map { _ = bytes(of: $0) }
        }
    }

    @Test func openDataFilesStayBoundedAndCloseWithTheStore() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(maxSize: 256 << 20, chunkSize: Self.chunk, lazyCommit: true))
        var overhead: Int?
        for asset in 0..<(StoreState.maxOpenFiles * 2) {
            try store.fill("nas://\(asset)", length: Self.chunk, chunks: [0])
            let region = try #require(
                store.fileRegion(ByteRange(first: 0, last: 9), of: "nas://\(asset)", validator: "\"v1\""))
            #expect(bytes(of: region) == Data(chunkBytes(0, count: 10)))
            // The index files and lock, once they are all open, plus one handle per data file read recently.
            let open = fixture.openDescriptors()
            if overhead == nil { overhead = open - 1 }
            #expect(open <= overhead! + StoreState.maxOpenFiles)
        }
        #expect(fixture.mappedDataFiles() <= StoreState.maxOpenFiles)
        store.close()
        #expect(fixture.openDescriptors() == 0)
        #expect(fixture.mappedDataFiles() == 0)
    }

    @Test func memoForgetsBeyondItsBounds() {
        let memo = IndexMemo(maxAssets: 4, maxChunks: 40)
        func row(_ key: String) -> AssetRow {
            AssetRow(
                key: StorageKey(key), assetID: key, info: ContentInfo(length: 1), validator: nil, fetchedAt: Date(),
                lastAccess: Date(), pinned: false, allocated: 0)
        }
        func chunks(_ count: Int) -> [ChunkRow] { (0..<count).map { ChunkRow(index: Int64($0), size: 1, crc: 0) } }
        for key in ["a", "b", "c", "d", "e"] { memo.remember(row(key)) }
        #expect(["a", "b", "c", "d", "e"].filter { memo.row(StorageKey($0)) != nil }.count == 4)
        #expect(memo.row(StorageKey("e")) != nil)

        memo.remember(chunks(11), of: StorageKey("e"))
        guard case .tooMany = memo.chunks(StorageKey("e")) else {
            Issue.record("more than a quarter of the chunk budget for one asset must not be kept")
            return
        }
        let kept = ["a", "b", "c", "d"].filter { memo.row(StorageKey($0)) != nil }
        for key in kept { memo.remember(chunks(10), of: StorageKey(key)) }
        memo.remember(row("f"))
        memo.remember(chunks(10), of: StorageKey("f"))
        let loaded = ["a", "b", "c", "d", "e", "f"].filter { memo.chunks(StorageKey($0))?.isLoaded == true }
        #expect(loaded.count <= 4 && loaded.contains("f"))

        memo.insert(ChunkRow(index: 99, size: 1, crc: 0), of: StorageKey("f"))
        memo.deleteChunks(of: StorageKey("f"), in: 0...4)
        guard case .loaded(let rows) = memo.chunks(StorageKey("f")) else {
            Issue.record("f's chunks were loaded")
            return
        }
        #expect(rows.keys.sorted() == [5, 6, 7, 8, 9, 99])
        memo.forgetAll()
        #expect(memo.row(StorageKey("f")) == nil)
    }
}
