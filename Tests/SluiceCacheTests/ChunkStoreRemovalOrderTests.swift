import Foundation
import SluiceCore
import Testing

@testable import SluiceCache

/// Removing chunks touches two things: the index, which says what is present, and the data file. The index
/// must forget first: a process killed between the two steps then leaves blocks nobody lists, never a listed
/// chunk whose bytes are gone (measured before the fix: 6 of 70 `kill -9`s under eviction and purges left one).
///
/// A second SQLite connection holding the write lock makes the index step fail at exactly that point.
@Suite(.ownThread) struct ChunkStoreRemovalOrderTests {
    static let chunk: Int64 = 64 << 10

    @Test func anEvictionTheIndexCannotRecordLeavesEveryListedChunkIntact() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        var store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        try store.fill("nas://old", length: Self.chunk * 10, chunks: Array(0..<10))
        _ = try store.recordContentInfo(
            ContentInfo(length: Self.chunk, contentType: "audio/mpeg", etag: "\"v1\""), for: "nas://new",
            at: Date(timeIntervalSince1970: 1_700_000_000))
        store.flush()
        store.close()
        // Reopened with no room for one more chunk: the next write evicts the tail of `old`.
        store = try fixture.open(fixture.options(maxSize: fixture.allocatedBytes() + 4096, chunkSize: Self.chunk))
        defer { store.close() }

        try withIndexLocked(fixture) {
            #expect(throws: CacheError.self) { try store.fill("nas://new", length: Self.chunk, chunks: [0]) }
        }
        try expectListedChunksIntact(store, "nas://old", count: 10)
    }

    @Test func aPurgeTheIndexCannotRecordLeavesTheDataFile() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        try store.fill("nas://a", length: Self.chunk * 3, chunks: [0, 1, 2])
        store.flush()

        try withIndexLocked(fixture) {
            #expect(throws: CacheError.self) { try store.purge("nas://a") }
        }
        try expectListedChunksIntact(store, "nas://a", count: 3)
    }

    /// Runs `body` while another connection holds the index's write lock (the store's writes fail as busy).
    private func withIndexLocked(_ fixture: CacheFixture, _ body: () throws -> Void) throws {
        let blocker = try SQLiteDatabase(path: fixture.directory + "/index.sqlite")
        defer { blocker.close() }
        try blocker.execute("BEGIN IMMEDIATE")
        try body()
        try blocker.execute("ROLLBACK")
    }

    /// Every chunk the index lists passes verification and reads back as written; `count` were written.
    private func expectListedChunksIntact(_ store: ChunkStore, _ assetID: String, count: Int64) throws {
        let report = try store.verify(dropBad: false)
        #expect(report.bad.isEmpty, "listed chunks whose bytes are gone: \(report.bad)")
        let listed = try #require(try store.entry(for: assetID)).chunks
        #expect(listed.count == Int(count), "the failed removal kept every chunk listed")
        for index in 0..<count where listed.contains(index) {
            let bytes = try store.read(
                ByteRange(offset: index * Self.chunk, count: Self.chunk), of: assetID, validator: "\"v1\"")
            #expect(bytes == chunkBytes(index, count: Int(Self.chunk)), "chunk \(index)")
        }
    }
}
