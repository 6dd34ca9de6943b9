import Dispatch
import Foundation
import SluiceCache
import SluiceCore
import SluiceTestSupport
import Testing

@Suite(.ownThread) struct ChunkStoreEvictionTests {
    static let chunk: Int64 = 64 << 10

    @Test func leastRecentlyUsedAssetsGoFirst() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(maxSize: 1 << 20, chunkSize: Self.chunk))
        defer { store.close() }
        var order: [String] = []
        var touched: String?
        var secondOldest: String?
        for number in 0..<40 {
            fixture.clock.advance(seconds: 1)
            if number == 20 {
                // Touch the oldest surviving asset: it becomes the most recently used.
                let survivors = try order.filter { try store.entry(for: $0)?.chunks.isEmpty == false }
                let survivor = try #require(survivors.first)
                secondOldest = survivors.dropFirst().first
                store.touch(survivor)
                order.removeAll { $0 == survivor }
                order.append(survivor)
                touched = survivor
                fixture.clock.advance(seconds: 1)
            }
            let id = "nas://track\(number)"
            try store.fill(id, length: Self.chunk, chunks: [0])
            order.append(id)
            let present = try order.map { try store.entry(for: $0)?.chunks.isEmpty == false ? 1 : 0 }
            #expect(present == present.sorted(), "evicted assets are exactly the least recently used")
            #expect(fixture.allocatedBytes() <= 1 << 20)
            if number == 25 {
                #expect(try store.entry(for: try #require(touched))?.chunks.isEmpty == false)
                #expect(try store.entry(for: try #require(secondOldest))?.chunks.isEmpty == true)
            }
        }
        #expect(try store.stats().evictions[.size, default: 0] >= 20)
    }

    @Test func tailChunksOfAnAssetGoFirst() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        var options = fixture.options(maxSize: 1 << 20, chunkSize: Self.chunk)
        // Cut at any chunk: by default cuts fall on 2 MiB boundaries, and these assets are smaller than that
        // (ChunkStoreSentBytesTests covers the alignment).
        options.truncationAlignment = Self.chunk
        let store = try fixture.open(options)
        defer { store.close() }
        try store.fill("nas://old", length: Self.chunk * 10, chunks: Array(0..<10))
        fixture.clock.advance(seconds: 10)
        try store.fill("nas://new", length: Self.chunk * 6, chunks: Array(0..<6))
        let old = try #require(try store.entry(for: "nas://old"))
        #expect(!old.chunks.isEmpty)
        #expect(old.chunks.runs.count == 1 && old.chunks.runs.first?.lowerBound == 0, "the start of the file is kept")
        #expect(old.chunks.count < 10)
        #expect(
            try store.read(ByteRange(first: 0, last: 99), of: "nas://old", validator: "\"v1\"")
                == Array(chunkBytes(0, count: 100)))
    }

    @Test(arguments: [(Int64(64 << 10), false), (Int64(64 << 10), true), (Int64(10_000), false)])
    func allocatedBytesNeverExceedMaxSize(chunkSize: Int64, encrypted: Bool) throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let maxSize: Int64 = 1 << 20
        let key = encrypted ? [UInt8](repeating: 9, count: 32) : nil
        let store = try fixture.open(fixture.options(maxSize: maxSize, chunkSize: chunkSize, key: key))
        defer { store.close() }
        var generator = SeededGenerator(seed: 42)
        for round in 0..<60 {
            fixture.clock.advance(seconds: 1)
            let id = "nas://asset\(generator.next() % 24)"
            let length = Int64(generator.next() % UInt64(chunkSize * 6)) + 1
            let chunks = (length + chunkSize - 1) / chunkSize
            let info = ContentInfo(length: length, etag: "\"\(round)\"")
            _ = try store.recordContentInfo(info, for: id, at: fixture.clock.now())
            for index in 0..<chunks {
                let count = Int(min(chunkSize, length - index * chunkSize))
                try store.write(chunk: index, of: id, bytes: chunkBytes(index, count: count), validator: info.validator)
                #expect(fixture.allocatedBytes() <= maxSize)
            }
            if round % 10 == 0 { store.flush() }
        }
        store.flush()
        #expect(try store.stats().diskBytes == fixture.allocatedBytes(), "accounting matches the filesystem")
        #expect(try store.stats().evictions[.size, default: 0] > 0)
    }

    @Test func pinnedAndLeasedAssetsAreNeverEvicted() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(maxSize: 1 << 20, chunkSize: Self.chunk))
        defer { store.close() }
        try store.fill("nas://pinned", length: Self.chunk * 4, chunks: Array(0..<4))
        try store.pin("nas://pinned", true)
        try store.fill("nas://leased", length: Self.chunk * 4, chunks: Array(0..<4))
        let lease = store.lease("nas://leased")
        fixture.clock.advance(seconds: 5)

        var written = 0
        do {
            for index in Int64(0)..<16 {
                try store.fill("nas://big", length: Self.chunk * 16, chunks: [index])
                written += 1
            }
            Issue.record("a file larger than the free space must hit .noSpace")
        } catch CacheError.noSpace {
            #expect(written > 0)
        }
        #expect(try store.entry(for: "nas://pinned")?.chunks.count == 4)
        #expect(try store.entry(for: "nas://leased")?.chunks.count == 4)
        #expect(fixture.allocatedBytes() <= 1 << 20)

        lease.release()
        try store.fill("nas://other", length: Self.chunk, chunks: [0])
        #expect(try store.entry(for: "nas://leased")?.chunks.count ?? 0 < 4, "released: evictable again")
        #expect(try store.entry(for: "nas://pinned")?.chunks.count == 4)
    }

    /// File regions (the cache-hit path) lease their asset: while any of them is out, eviction passes the asset
    /// by; leases released from many threads at once all count, and the asset becomes evictable when the last
    /// one ends.
    @Test func fileRegionLeasesHoldUntilTheLastIsReleased() async throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(maxSize: 1 << 20, chunkSize: Self.chunk))
        defer { store.close() }
        try store.fill("nas://read", length: Self.chunk * 4, chunks: Array(0..<4))
        let all = ByteRange(first: 0, last: Self.chunk * 4 - 1)
        var regions: [CacheFileRegion] = []
        for _ in 0..<64 { regions.append(try #require(store.fileRegion(all, of: "nas://read", validator: "\"v1\""))) }
        let last = regions.removeLast()
        await withTaskGroup(of: Void.self) { group in
            for region in regions { group.addTask { region.lease.release() } }
        }
        fixture.clock.advance(seconds: 5)
        #expect(throws: CacheError.noSpace) {
            for index in Int64(0)..<16 { try store.fill("nas://big", length: Self.chunk * 16, chunks: [index]) }
        }
        #expect(try store.entry(for: "nas://read")?.chunks.count == 4, "one region is still out")
        last.lease.release()
        try store.fill("nas://other", length: Self.chunk, chunks: [0])
        #expect(try store.entry(for: "nas://read")?.chunks.count ?? 0 < 4, "every lease released: evictable again")
    }

    @Test func noSpaceWhenEverythingIsPinned() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(maxSize: 1 << 20, chunkSize: Self.chunk))
        defer { store.close() }
        var number = 0
        while true {
            do {
                try store.fill("nas://p\(number)", length: Self.chunk, chunks: [0])
            } catch CacheError.noSpace {
                break
            }
            try store.pin("nas://p\(number)", true)
            number += 1
        }
        #expect(number > 5)
        #expect(throws: CacheError.noSpace) { try store.fill("nas://late", length: Self.chunk, chunks: [0]) }
        #expect(try store.entry(for: "nas://late")?.chunks.isEmpty == true)
        #expect(try store.stats().totalEvictions == 0)
        #expect(fixture.allocatedBytes() <= 1 << 20)
    }

    @Test func idleEntriesAreSweptAfterMaxAge() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        for id in ["nas://a", "nas://b", "nas://pinned", "nas://leased"] {
            _ = try store.recordContentInfo(ContentInfo(length: 10, etag: "\"v1\""), for: id, at: fixture.clock.now())
            try store.write(chunk: 0, of: id, bytes: chunkBytes(0, count: 10), validator: "\"v1\"")
        }
        try store.pin("nas://pinned", true)
        let lease = store.lease("nas://leased")
        fixture.clock.advance(seconds: 1800)
        store.touch("nas://a")
        fixture.clock.advance(seconds: 2000)

        #expect(try store.sweepExpired() == 1)
        #expect(try store.entry(for: "nas://b") == nil)
        #expect(try store.entry(for: "nas://a") != nil)
        #expect(try store.entry(for: "nas://pinned") != nil)
        #expect(try store.entry(for: "nas://leased") != nil)
        #expect(fixture.dataFiles().count == 3)
        #expect(try store.stats().evictions[.age] == 1)

        lease.release()
        fixture.clock.advance(seconds: 3600)
        #expect(try store.sweepExpired() == 2)
        #expect(try store.stats().entries == 1)
    }

    @Test func fullDiskFailsTheWriteWithoutMarkingTheChunk() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk))
        defer { store.close() }
        try store.fill("nas://full", length: Self.chunk, chunks: [])
        try store.fill("nas://fine", length: Self.chunk, chunks: [0])
        // Every write to /dev/full fails with ENOSPC, as a full filesystem would.
        let key = store.storageKey(for: "nas://full")
        let shard = fixture.directory + "/data/" + key.text.prefix(2)
        try FileManager.default.createDirectory(atPath: shard, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: shard + "/" + key.text + ".dat", withDestinationPath: "/dev/full")

        #expect(throws: CacheError.noSpace) {
            try store.write(
                chunk: 0, of: "nas://full", bytes: chunkBytes(0, count: Int(Self.chunk)), validator: "\"v1\"")
        }
        store.flush()
        #expect(try store.entry(for: "nas://full")?.chunks.isEmpty == true)
        #expect(throws: CacheError.notCached) {
            try store.read(ByteRange(first: 0, last: 0), of: "nas://full", validator: "\"v1\"")
        }
        #expect(
            try store.read(ByteRange(first: 0, last: 9), of: "nas://fine", validator: "\"v1\"")
                == Array(chunkBytes(0, count: 10)))
    }

    @Test func concurrentWritersAndReadersStayConsistent() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let chunk: Int64 = 16 << 10
        var options = fixture.options(maxSize: 1 << 20, chunkSize: chunk)
        options.commitInterval = .milliseconds(5)
        let store = try fixture.open(options)
        defer { store.close() }
        let length = chunk * 10
        for worker in 0..<4 { try store.fill("nas://w\(worker)", length: length, chunks: []) }
        let object = objectBytes(length: length, chunkSize: chunk)
        let failures = LogCollector()
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            let id = "nas://w\(worker)"
            for round in 0..<30 {
                let index = Int64((round * 7 + worker) % 10)
                do {
                    try store.write(
                        chunk: index, of: id, bytes: chunkBytes(index, count: Int(chunk)), validator: "\"v1\"")
                    let range = ByteRange(first: index * chunk + 5, last: index * chunk + 500)
                    let bytes = try store.read(range, of: id, validator: "\"v1\"")
                    if bytes != Array(object[Int(range.first)...Int(range.last)]) { failures.append("bytes differ") }
                } catch CacheError.noSpace, CacheError.notCached, CacheError.busy {
                    continue
                } catch {
                    failures.append("\(error)")
                }
            }
        }
        #expect(failures.all.isEmpty)
        store.flush()
        #expect(fixture.allocatedBytes() <= 1 << 20)
        #expect(try store.stats().diskBytes == fixture.allocatedBytes())
    }
}
