import Foundation
import Glibc
import SluiceCache
import SluiceCore
import Testing

/// `write(chunks:of:bytes:validator:)`: consecutive chunks written at once, in one `pwrite` when the store is
/// plaintext, so that the page cache holds a folio-sized run in one large folio.
@Suite(.ownThread) struct ChunkStoreRunWriteTests {
    static let chunk: Int64 = 64 << 10
    static let length = chunk * 2 + 1234

    /// The largest folio the kernel says it may use for a file (the PMD size), 2 MiB when it does not say, as
    /// `PageCache.largestFolio` documents.
    static let hugePage: Int64 = {
        let text = try? String(
            contentsOfFile: "/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", encoding: .utf8)
        return text.flatMap { Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 2 << 20
    }()

    /// A plaintext store in `fixture` that knows `nas://a` and holds none of its chunks, and the object's bytes.
    static func openWithoutChunks(_ fixture: CacheFixture) throws -> (ChunkStore, [UInt8]) {
        let store = try fixture.open(fixture.options(chunkSize: chunk, lazyCommit: true))
        try store.fill("nas://a", length: length, chunks: [])
        return (store, objectBytes(length: length, chunkSize: chunk))
    }

    @Test(arguments: [false, true])
    func runOfWholeChunksAndAShortLastOneReadsBackExact(encrypted: Bool) throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let key = encrypted ? [UInt8](repeating: 7, count: 32) : nil
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk, key: key, lazyCommit: true))
        defer { store.close() }
        try store.fill("nas://a", length: Self.length, chunks: [])
        let object = objectBytes(length: Self.length, chunkSize: Self.chunk)

        try store.writeRun(0, of: "nas://a", bytes: object, validator: "\"v1\"")
        #expect(try store.entry(for: "nas://a")?.chunks == ChunkSet([0, 1, 2]))
        #expect(try store.stats().pendingChunks == 3)
        #expect(try store.readAll("nas://a", length: Self.length) == object)

        store.flush()
        let entry = try #require(try store.entry(for: "nas://a"))
        #expect(entry.committedChunks == ChunkSet([0, 1, 2]))
        #expect(entry.cachedBytes == Self.length)
        #expect(try store.stats().pendingChunks == 0)
        #expect(try store.readAll("nas://a", length: Self.length) == object)
        let report = try store.verify(dropBad: false)
        #expect(report.bad.isEmpty)
        #expect(report.chunksChecked == 3)
        let file = try #require(fixture.dataFiles().first)
        let disk = try [UInt8](Data(contentsOf: URL(fileURLWithPath: file)))
        #expect((disk.prefix(object.count) == object[...]) == !encrypted)
    }

    /// A chunk of the run already readable (pending or present) is not written again: the run falls back to one
    /// write a chunk. The run carries other bytes for that chunk, so that writing over it would show.
    @Test(arguments: [false, true])
    func runOverAReadableChunkFallsBackChunkByChunk(committed: Bool) throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.chunk, lazyCommit: true))
        defer { store.close() }
        try store.fill("nas://a", length: Self.length, chunks: [1])
        if committed { store.flush() }
        let object = objectBytes(length: Self.length, chunkSize: Self.chunk)
        let other = chunkBytes(1, count: Int(Self.chunk), seed: 2)
        let run = Array(object[..<Int(Self.chunk)]) + other + Array(object[Int(2 * Self.chunk)...])

        try store.writeRun(0, of: "nas://a", bytes: run, validator: "\"v1\"")
        #expect(try store.entry(for: "nas://a")?.chunks == ChunkSet([0, 1, 2]))
        #expect(try store.readAll("nas://a", length: Self.length) == object)

        store.flush()
        #expect(try store.entry(for: "nas://a")?.committedChunks == ChunkSet([0, 1, 2]))
        #expect(try store.readAll("nas://a", length: Self.length) == object)
        #expect(try store.verify(dropBad: false).bad.isEmpty)
    }

    @Test func runWithAStaleValidatorWritesNothing() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let (store, object) = try Self.openWithoutChunks(fixture)
        defer { store.close() }

        #expect(throws: CacheError.stale) { try store.writeRun(0, of: "nas://a", bytes: object, validator: "\"v0\"") }
        #expect(try store.entry(for: "nas://a")?.chunks.isEmpty == true)
        #expect(try store.stats().pendingChunks == 0)
        store.flush()
        #expect(try store.entry(for: "nas://a")?.committedChunks.isEmpty == true)
        #expect(throws: CacheError.notCached) {
            try store.read(ByteRange(first: 0, last: 0), of: "nas://a", validator: "\"v1\"")
        }
        // Nothing of the refused run is still marked as being written: the right version is then written whole.
        try store.writeRun(0, of: "nas://a", bytes: object, validator: "\"v1\"")
        #expect(try store.readAll("nas://a", length: Self.length) == object)
    }

    /// The last chunk of the run is refused after the first two were admitted for the one `pwrite`: those are given
    /// up, not left marked as being written, where a later write of them would be skipped as busy.
    @Test func runRefusedPartWayLeavesNoChunkBusy() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let (store, object) = try Self.openWithoutChunks(fixture)
        defer { store.close() }

        #expect(throws: CacheError.invalidChunk(index: 2)) {
            try store.writeRun(0, of: "nas://a", bytes: object + [0], validator: "\"v1\"")
        }
        try store.writeRun(0, of: "nas://a", bytes: object, validator: "\"v1\"")
        #expect(try store.entry(for: "nas://a")?.chunks == ChunkSet([0, 1, 2]))
        #expect(try store.readAll("nas://a", length: Self.length) == object)
    }

    @Test(arguments: [Int64(64 << 10), 1 << 20, 768 << 10, 2 << 20, 4 << 20])
    func chunksPerFolioFillsTheLargestFolio(chunkSize: Int64) throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: chunkSize, hugePages: true))
        defer { store.close() }
        let divides = chunkSize < Self.hugePage && Self.hugePage % chunkSize == 0
        #expect(store.chunksPerFolio == (divides ? Self.hugePage / chunkSize : 1))
        if Self.hugePage == 2 << 20, chunkSize == 1 << 20 { #expect(store.chunksPerFolio == 2) }
    }

    @Test func chunksPerFolioIsOneWhenEncrypted() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let key = [UInt8](repeating: 7, count: 32)
        let store = try fixture.open(fixture.options(chunkSize: Self.hugePage / 2, key: key, hugePages: true))
        defer { store.close() }
        #expect(store.chunksPerFolio == 1)
    }

    @Test func chunksPerFolioIsOneWithoutHugePages() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: Self.hugePage / 2))
        defer { store.close() }
        #expect(store.chunksPerFolio == 1)
    }

    /// What the run write is for: a folio-sized run written at once sits in the page cache as one large folio, which
    /// a read-only shared mapping of the data file maps with one PMD entry, exactly as the same bytes written by one
    /// `pwrite` of a reference file are. Written chunk by chunk (the second reference) they sit in smaller folios.
    /// Where the kernel or filesystem has no large folios even the one-`pwrite` reference is not PMD mapped: then
    /// only the bytes can be checked.
    @Test(.enabled(if: hugePage <= 32 << 20, "a folio's worth of chunks is too large to write in a test here"))
    func folioRunIsMappedLikeOneWrite() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let chunk = Self.hugePage / 2
        let store = try fixture.open(fixture.options(chunkSize: chunk, lazyCommit: true, hugePages: true))
        defer { store.close() }
        #expect(store.chunksPerFolio == 2)
        let length = 2 * chunk
        try store.fill("nas://a", length: length, chunks: [])
        let object = objectBytes(length: length, chunkSize: chunk)
        try store.writeRun(0, of: "nas://a", bytes: object, validator: "\"v1\"")
        let dataFile = try #require(fixture.dataFiles().first)

        let oneWrite = fixture.directory + "/reference-one-pwrite"
        let twoWrites = fixture.directory + "/reference-two-pwrites"
        try writeReference(object, to: oneWrite, pieces: [Int(length)])
        try writeReference(object, to: twoWrites, pieces: [Int(chunk), Int(chunk)])

        var pmdMapped: [String: Int] = [:]
        for (name, path) in [("run", dataFile), ("one pwrite", oneWrite), ("two pwrites", twoWrites)] {
            let mapping = try SharedFileMapping(path: path, length: Int(length), alignment: Int(Self.hugePage))
            mapping.touchEveryPage()
            #expect(object.withUnsafeBytes { memcmp($0.baseAddress!, mapping.address, $0.count) } == 0, "\(name)")
            pmdMapped[name] = try mapping.filePmdMappedBytes()
        }
        let run = try #require(pmdMapped["run"])
        let reference = try #require(pmdMapped["one pwrite"])
        if reference > 0 {
            #expect(
                run == reference,
                "FilePmdMapped: run \(run), one pwrite \(reference), two pwrites \(pmdMapped["two pwrites"] ?? -1)")
        }
    }
}

extension ChunkStore {
    /// The first `length` bytes of version `"v1"` of `assetID`.
    fileprivate func readAll(_ assetID: String, length: Int64) throws(CacheError) -> [UInt8] {
        try read(ByteRange(first: 0, last: length - 1), of: assetID, validator: "\"v1\"")
    }

    /// Writes a run from an array; see ``write(chunks:of:bytes:validator:)``.
    fileprivate func writeRun(_ first: Int64, of assetID: String, bytes: [UInt8], validator: String?)
        throws(CacheError)
    {
        try bytes.withUnsafeBytes { buffer in
            Result { () throws(CacheError) in
                try write(chunks: first, of: assetID, bytes: buffer, validator: validator)
            }
        }.get()
    }
}
