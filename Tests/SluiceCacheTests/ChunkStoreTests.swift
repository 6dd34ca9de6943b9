import Foundation
import SluiceCore
import Testing

@testable import SluiceCache

@Suite(.ownThread) struct ChunkStoreTests {
    static let chunk: Int64 = 64 << 10
    static let length = chunk * 2 + 1234

    @Test(arguments: [false, true])
    func writeThenReadRoundTrip(encrypted: Bool) throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let key = encrypted ? [UInt8](repeating: 7, count: 32) : nil
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk, key: key))
        defer { store.close() }
        try store.fill("nas://music/a.mp3", length: Self.length, chunks: [0, 1, 2])
        let object = objectBytes(length: Self.length, chunkSize: Self.chunk)

        for range in [
            ByteRange(first: 0, last: Self.length - 1), ByteRange(first: 10, last: 20),
            ByteRange(first: Self.chunk - 5, last: Self.chunk + 5),
            ByteRange(first: Self.length - 1, last: Self.length - 1),
        ] {
            let bytes = try store.read(range, of: "nas://music/a.mp3", validator: "\"v1\"")
            #expect(bytes == Array(object[Int(range.first)...Int(range.last)]))
        }
        let entry = try #require(try store.entry(for: "nas://music/a.mp3"))
        #expect(entry.chunks == ChunkSet([0, 1, 2]))
        #expect(entry.cachedBytes == Self.length)
        #expect(entry.presentRanges == [ByteRange(first: 0, last: Self.length - 1)])
        #expect(entry.info.etag == "\"v1\"")
        #expect(entry.info.contentType == "audio/mpeg")

        store.flush()
        let file = try #require(fixture.dataFiles().first)
        let disk = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        let plaintextOnDisk = disk.starts(with: object.prefix(4096))
        #expect(plaintextOnDisk == !encrypted)
    }

    @Test func dataFileIsNamedByAssetKeyHash() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        try store.fill("nas://../../etc/passwd", length: 10, chunks: [0])
        let files = fixture.dataFiles()
        #expect(files.count == 1)
        let name = try #require(files.first?.split(separator: "/").last)
        #expect(name.count == 64 + 4)
        #expect(files.first?.contains("/data/\(name.prefix(2))/") == true)
    }

    @Test func missingChunksAreNotServed() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        try store.fill("nas://a", length: Self.length, chunks: [0, 2])
        #expect(throws: CacheError.notCached) {
            try store.read(ByteRange(first: 0, last: Self.chunk), of: "nas://a", validator: "\"v1\"")
        }
        #expect(throws: CacheError.notCached) {
            try store.read(ByteRange(first: 0, last: Self.length), of: "nas://a", validator: "\"v1\"")
        }
        #expect(throws: CacheError.notCached) {
            try store.read(ByteRange(first: 0, last: 1), of: "nas://other", validator: "\"v1\"")
        }
        #expect(
            store.fileRegion(ByteRange(first: Self.chunk, last: Self.chunk), of: "nas://a", validator: "\"v1\"") == nil)
        let entry = try #require(try store.entry(for: "nas://a"))
        #expect(entry.chunks.missing(in: 0...2) == [1...1])
        #expect(!entry.contains(ByteRange(first: 0, last: Self.chunk)))
        #expect(entry.contains(ByteRange(first: 0, last: Self.chunk - 1)))
    }

    @Test func writesAreCheckedAgainstTheEntry() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        #expect(throws: CacheError.unknownAsset) {
            try store.write(chunk: 0, of: "nas://a", bytes: [1], validator: nil)
        }
        try store.fill("nas://a", length: Self.length, chunks: [])
        #expect(throws: CacheError.invalidChunk(index: 0)) {
            try store.write(chunk: 0, of: "nas://a", bytes: [1, 2, 3], validator: "\"v1\"")
        }
        #expect(throws: CacheError.invalidChunk(index: 3)) {
            try store.write(chunk: 3, of: "nas://a", bytes: [1], validator: "\"v1\"")
        }
        #expect(throws: CacheError.invalidChunk(index: 2)) {
            try store.write(
                chunk: 2, of: "nas://a", bytes: [UInt8](repeating: 0, count: Int(Self.chunk)), validator: "\"v1\"")
        }
        #expect(throws: CacheError.stale) {
            try store.write(chunk: 2, of: "nas://a", bytes: [UInt8](repeating: 0, count: 1234), validator: "\"v0\"")
        }
    }

    @Test func pendingChunksAreReadableThenCommitted() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk, lazyCommit: true))
        defer { store.close() }
        try store.fill("nas://a", length: Self.length, chunks: [0, 1])
        var entry = try #require(try store.entry(for: "nas://a"))
        #expect(entry.chunks == ChunkSet([0, 1]))
        #expect(entry.committedChunks.isEmpty)
        #expect(try store.stats().pendingChunks == 2)
        #expect(
            try store.read(ByteRange(first: 0, last: 9), of: "nas://a", validator: "\"v1\"")
                == Array(chunkBytes(0, count: 10)))

        store.flush()
        entry = try #require(try store.entry(for: "nas://a"))
        #expect(entry.committedChunks == ChunkSet([0, 1]))
        #expect(try store.stats().pendingChunks == 0)
    }

    @Test func committerMarksChunksPresentOnItsOwn() async throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        var options = fixture.options(chunkSize: Self.chunk)
        options.commitInterval = .milliseconds(20)
        let store = try fixture.open(options)
        defer { store.close() }
        try store.fill("nas://a", length: Self.length, chunks: [0])
        var committed = false
        for _ in 0..<200 where !committed {
            try await Task.sleep(for: .milliseconds(10))
            committed = try store.entry(for: "nas://a")?.committedChunks.contains(0) == true
        }
        #expect(committed)
    }

    @Test func reopenAfterCloseKeepsData() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let options = fixture.options(chunkSize: Self.chunk, key: [UInt8](repeating: 3, count: 32), lazyCommit: true)
        var store = try fixture.open(options)
        try store.fill("nas://a", length: Self.length, chunks: [0, 2])
        try store.pin("nas://a", true)
        store.close()
        #expect(throws: CacheError.closed) { try store.entry(for: "nas://a") }

        store = try fixture.open(options)
        defer { store.close() }
        let entry = try #require(try store.entry(for: "nas://a"))
        #expect(entry.committedChunks == ChunkSet([0, 2]))
        #expect(entry.pinned)
        #expect(
            try store.read(ByteRange(first: 2 * Self.chunk, last: Self.length - 1), of: "nas://a", validator: "\"v1\"")
                == chunkBytes(2, count: 1234))
    }

    @Test func oneProcessAtATime() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        #expect(throws: CacheError.inUse) { try fixture.open(fixture.options(chunkSize: Self.chunk)) }
        store.close()
        try fixture.open(fixture.options(chunkSize: Self.chunk)).close()
    }

    /// A child process that another thread is spawning holds a copy of every descriptor until it execs (close-on-exec
    /// or not); the lock goes with the open file, so closing the store must release it, not only close it.
    @Test func closingReleasesTheLockWhileACopyOfItsDescriptorLives() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        let copy = try #require(store.state.withLock { $0.lockDescriptor }.map { dup($0) })
        defer { close(copy) }
        store.close()
        try fixture.open(fixture.options(chunkSize: Self.chunk)).close()
    }

    @Test func changedEncryptionKeyEmptiesTheCache() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        var store = try fixture.open(fixture.options(chunkSize: Self.chunk, key: [UInt8](repeating: 3, count: 32)))
        try store.fill("nas://a", length: Self.length, chunks: [0])
        store.close()
        store = try fixture.open(fixture.options(chunkSize: Self.chunk, key: [UInt8](repeating: 4, count: 32)))
        defer { store.close() }
        #expect(try store.entry(for: "nas://a") == nil)
        #expect(fixture.logLines.all.contains { $0.contains("cache emptied") })
    }

    /// A configuration that sets no chunk size opens an existing cache with the one it was written with: an upgrade
    /// whose default changed keeps every chunk. One that sets another size empties it.
    @Test func anUnsetChunkSizeKeepsTheRecordedOneASetOneReplacesIt() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        var store = try fixture.open(fixture.options(chunkSize: 2 * Self.chunk))
        try store.fill("nas://a", length: Self.length, chunks: [0])
        store.close()
        var kept = fixture.options(chunkSize: Self.chunk)
        kept.keepsRecordedChunkSize = true
        store = try fixture.open(kept)
        #expect(store.options.chunkSize == 2 * Self.chunk)
        #expect(try store.entry(for: "nas://a")?.chunks.contains(0) == true)
        #expect(!fixture.logLines.all.contains { $0.contains("cache emptied") })
        store.close()

        store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        #expect(store.options.chunkSize == Self.chunk)
        #expect(try store.entry(for: "nas://a") == nil)
        #expect(fixture.logLines.all.contains { $0.contains("cache emptied") })
    }

    @Test func aNewCacheTakesTheDefaultChunkSize() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        var options = fixture.options(chunkSize: Self.chunk)
        options.keepsRecordedChunkSize = true
        let store = try fixture.open(options)
        defer { store.close() }
        #expect(store.options.chunkSize == Self.chunk)
    }

    @Test func uncommittedChunksAreNotServedAfterACrash() throws {
        try CacheFixture.withCrashCopy { fixture, copy in
            let store = try fixture.open(fixture.options(chunkSize: Self.chunk, lazyCommit: true))
            defer { store.close() }
            try store.fill("nas://a", length: Self.length, chunks: [0])
            store.flush()
            try store.fill("nas://a", length: Self.length, chunks: [1])
            // Chunk 1's bytes are in the data file, but its row never reached the index.
            try fixture.copyFiles(to: copy)

            let recovered = try copy.open(copy.options(chunkSize: Self.chunk))
            defer { recovered.close() }
            #expect(try recovered.entry(for: "nas://a")?.chunks == ChunkSet([0]))
            #expect(throws: CacheError.notCached) {
                try recovered.read(ByteRange(first: Self.chunk, last: Self.chunk), of: "nas://a", validator: "\"v1\"")
            }
            #expect(
                try recovered.read(ByteRange(first: 0, last: 3), of: "nas://a", validator: "\"v1\"")
                    == Array(chunkBytes(0, count: 4)))
        }
    }

    @Test func versionChangeDropsChunksAndRefusesOldWrites() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        try store.fill("nas://a", length: Self.length, chunks: [0, 1])
        store.flush()
        let first = try #require(try store.entry(for: "nas://a"))

        let later = first.fetchedAt.addingTimeInterval(60)
        let same = ContentInfo(length: Self.length, contentType: "audio/mp4", etag: "\"v1\"")
        #expect(try store.recordContentInfo(same, for: "nas://a", at: later) == .unchanged)
        let refreshed = try #require(try store.entry(for: "nas://a"))
        #expect(refreshed.fetchedAt == later)
        #expect(refreshed.info.contentType == "audio/mp4")
        #expect(refreshed.chunks == ChunkSet([0, 1]))

        let next = ContentInfo(length: Self.length, etag: "\"v2\"")
        #expect(try store.recordContentInfo(next, for: "nas://a", at: later) == .replaced)
        #expect(try store.entry(for: "nas://a")?.chunks.isEmpty == true)
        #expect(fixture.dataFiles().isEmpty)
        #expect(throws: CacheError.stale) {
            try store.write(chunk: 0, of: "nas://a", bytes: chunkBytes(0, count: Int(Self.chunk)), validator: "\"v1\"")
        }
        try store.write(
            chunk: 0, of: "nas://a", bytes: chunkBytes(0, count: Int(Self.chunk), seed: 9), validator: "\"v2\"")
        #expect(
            try store.read(ByteRange(first: 0, last: 99), of: "nas://a", validator: "\"v2\"")
                == Array(chunkBytes(0, count: 100, seed: 9)))
        #expect(throws: CacheError.stale) {
            try store.read(ByteRange(first: 0, last: 99), of: "nas://a", validator: "\"v1\"")
        }
        #expect(store.fileRegion(ByteRange(first: 0, last: 99), of: "nas://a", validator: "\"v1\"") == nil)
        #expect(try store.stats().evictions[.version] == 2)

        let shorter = ContentInfo(length: 100, etag: "\"v2\"")
        #expect(try store.recordContentInfo(shorter, for: "nas://a", at: later) == .replaced)
    }

    @Test func fileRegionServesPlaintextUnderALease() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        try store.fill("nas://a", length: Self.length, chunks: [0, 1, 2])
        let range = ByteRange(first: 100, last: Self.chunk + 100)
        let region = try #require(store.fileRegion(range, of: "nas://a", validator: "\"v1\""))
        let descriptor = try #require(region.openDescriptor())
        defer { close(descriptor) }
        #expect(region.offset == 100)
        #expect(region.count == range.count)
        var buffer = [UInt8](repeating: 0, count: Int(region.count))
        #expect(pread(descriptor, &buffer, buffer.count, off_t(region.offset)) == buffer.count)
        #expect(buffer == Array(objectBytes(length: Self.length, chunkSize: Self.chunk)[100...Int(Self.chunk + 100)]))
        #expect(region.mapped.map { Array($0.bytes) } == buffer)
        region.lease.release()
        region.lease.release()
        #expect(region.lease.isReleased)
    }

    @Test func fileRegionIsNilWhenEncrypted() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk, key: [UInt8](repeating: 1, count: 32)))
        defer { store.close() }
        try store.fill("nas://a", length: Self.length, chunks: [0])
        #expect(store.fileRegion(ByteRange(first: 0, last: 10), of: "nas://a", validator: "\"v1\"") == nil)
        #expect(store.isEncrypted)
        #expect(!"\(store.options)".contains("1, 1, 1"))
        #expect("\(store.options)".contains("<redacted>"))
        #expect(
            try store.read(ByteRange(first: 0, last: 10), of: "nas://a", validator: "\"v1\"")
                == Array(chunkBytes(0, count: 11)))
    }

    @Test func purgeAndPurgeAll() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        try store.fill("nas://a", length: Self.length, chunks: [0])
        try store.fill("nas://b", length: Self.length, chunks: [0, 1])
        try store.fill("nas://c", length: Self.length, chunks: [2])
        #expect(try store.purge("nas://a"))
        #expect(try !store.purge("nas://a"))
        #expect(try store.entry(for: "nas://a") == nil)
        #expect(try store.stats().entries == 2)
        #expect(fixture.dataFiles().count == 2)

        try store.purgeAll()
        #expect(try store.stats().entries == 0)
        #expect(try store.stats().evictions[.purge] == 4)
        #expect(fixture.dataFiles().isEmpty)
        try store.fill("nas://b", length: Self.length, chunks: [1])
        #expect(
            try store.read(ByteRange(first: Self.chunk, last: Self.chunk + 9), of: "nas://b", validator: "\"v1\"")
                == Array(chunkBytes(1, count: 10)))
    }

    @Test func listPagesThroughEntries() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        let ids = (0..<7).map { "nas://file\($0)" }
        for id in ids { try store.fill(id, length: 10, chunks: [0]) }
        var seen: [String] = []
        var cursor: String?
        repeat {
            let page = try store.list(limit: 3, after: cursor)
            #expect(page.entries.count <= 3)
            seen += page.entries.map(\.assetID)
            cursor = page.next
        } while cursor != nil
        #expect(seen.sorted() == ids.sorted())
        #expect(Set(seen).count == 7)
    }

    @Test func noDescriptorsLeak() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(maxSize: 1 << 20, chunkSize: Self.chunk))
        #expect(fixture.openDescriptors() > 0)
        for round in 0..<30 {
            try store.fill("nas://\(round)", length: Self.length, chunks: [0, 1, 2])
            _ = try store.read(ByteRange(first: 0, last: Self.length - 1), of: "nas://\(round)", validator: "\"v1\"")
            if let region = store.fileRegion(ByteRange(first: 0, last: 9), of: "nas://\(round)", validator: "\"v1\""),
                let descriptor = region.openDescriptor()
            {
                close(descriptor)
                region.lease.release()
            }
        }
        _ = try store.verify(dropBad: false)
        store.close()
        #expect(fixture.openDescriptors() == 0)
        #expect(fixture.mappedDataFiles() == 0)
    }
}
