import Foundation
import Glibc
import SluiceCore
import Testing

@testable import SluiceCache

/// Encryption at rest: sealed segments, what the cache directory reveals, tampering, key rotation.
@Suite(.ownThread) struct EncryptedStoreTests {
    static let chunk: Int64 = 256 << 10
    static let keyA = [UInt8](repeating: 0xA1, count: 32)
    static let keyB = [UInt8](repeating: 0xB2, count: 32)
    static let assetID = "nas://music/Album/01 Intro.mp3"

    func options(_ fixture: CacheFixture, current: [UInt8], previous: [[UInt8]] = []) -> CacheOptions {
        var options = fixture.options(chunkSize: Self.chunk)
        options.encryption = CacheEncryption(currentKey: current, previousKeys: previous)
        return options
    }

    /// Fills chunks 0…2 of a 3-chunk asset and syncs them.
    func filled(_ fixture: CacheFixture, current: [UInt8] = keyA) throws -> ChunkStore {
        let store = try fixture.open(options(fixture, current: current))
        try store.fill(Self.assetID, length: Self.chunk * 3, chunks: [0, 1, 2])
        store.flush()
        return store
    }

    var object: [UInt8] { objectBytes(length: Self.chunk * 3, chunkSize: Self.chunk) }

    func dataFile(_ fixture: CacheFixture) throws -> String { try #require(fixture.dataFiles().first) }

    /// No 4 KiB block of the media, and no asset ID, path component, content type or ETag, is anywhere in the cache
    /// directory's files (data files, index, WAL), and the files are private.
    @Test func theCacheDirectoryRevealsNoContentOrName() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try filled(fixture)
        #expect(
            try store.read(ByteRange(first: 0, last: Self.chunk * 3 - 1), of: Self.assetID, validator: "\"v1\"")
                == object)
        let needles =
            [Self.assetID, "music", "Album", "01 Intro.mp3", "audio/mpeg", "\"v1\""].map { Data($0.utf8) }
            + stride(from: 0, to: object.count, by: 4096).map { Data(object[$0..<($0 + 4096)]) }
        func scan() throws {
            let files = (FileManager.default.enumerator(atPath: fixture.directory)?.compactMap { $0 as? String } ?? [])
                .map { fixture.directory + "/" + $0 }.filter { !FileManager.default.isDirectory($0) }
            #expect(files.contains { $0.hasSuffix("index.sqlite") } && files.contains { $0.hasSuffix(".dat") })
            for file in files {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                for (number, needle) in needles.enumerated() {
                    #expect(bytes.range(of: needle) == nil, "needle \(number) found in \(file)")
                }
                #expect(FileManager.default.permissions(file) & 0o077 == 0, "\(file) is readable by others")
            }
        }
        try scan()
        store.close()
        try scan()
        #expect(FileManager.default.permissions(fixture.directory) == 0o700)
        // The admin view still shows the names, decrypted.
        let reopened = try fixture.open(options(fixture, current: Self.keyA))
        defer { reopened.close() }
        let entry = try #require(try reopened.list(limit: 10, after: nil).entries.first)
        #expect(entry.assetID == Self.assetID && entry.info.contentType == "audio/mpeg" && entry.validator == "\"v1\"")
    }

    enum Tamper: CaseIterable {
        case flippedByte, swappedSegments, swappedChunks, truncatedFile
    }

    /// Each tampering is detected on read: counted, the chunk dropped (so it is fetched again), and a chunk written
    /// again reads back exact.
    @Test(arguments: Tamper.allCases) func tamperingIsDetectedAndRepaired(tamper: Tamper) throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try filled(fixture)
        defer { store.close() }
        let file = try dataFile(fixture)
        let slot = store.slotSize
        let segment = SealedLayout.storedSegmentSize
        switch tamper {
        case .flippedByte: try RawFile.flip(file, at: slot + 2 * segment + 77)
        case .swappedSegments: try RawFile.swap(file, slot, slot + segment, count: segment)
        case .swappedChunks: try RawFile.swap(file, slot, 2 * slot, count: slot)
        case .truncatedFile: #expect(truncate(file, off_t(slot + 1000)) == 0)
        }
        let range = ByteRange(first: Self.chunk, last: 2 * Self.chunk - 1)
        #expect(throws: CacheError.corrupt(index: 1)) { try store.read(range, of: Self.assetID, validator: "\"v1\"") }
        #expect(try store.stats().evictions[.corrupt] == 1)
        #expect(try store.missingChunks(in: 0...2, of: Self.assetID, validator: "\"v1\"").contains { $0.contains(1) })
        try store.write(chunk: 1, of: Self.assetID, bytes: chunkBytes(1, count: Int(Self.chunk)), validator: "\"v1\"")
        #expect(
            try store.read(range, of: Self.assetID, validator: "\"v1\"")
                == Array(object[Int(Self.chunk)..<Int(2 * Self.chunk)]))
    }

    /// A read opens only the segments holding its range: a damaged segment elsewhere in the chunk does not stop it.
    @Test func aReadOpensOnlyTheSegmentsItNeeds() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try filled(fixture)
        defer { store.close() }
        try RawFile.flip(try dataFile(fixture), at: 3 * SealedLayout.storedSegmentSize + 5)
        let head = ByteRange(first: 100, last: 2 * SealedLayout.segmentSize + 99)
        #expect(try store.read(head, of: Self.assetID, validator: "\"v1\"") == Array(object[100...Int(head.last)]))
        #expect(throws: CacheError.corrupt(index: 0)) {
            try store.read(ByteRange(first: 0, last: Self.chunk - 1), of: Self.assetID, validator: "\"v1\"")
        }
    }

    /// Chunks sealed under a previous key serve; `rekey` re-seals them all; afterwards the old key can go.
    @Test func rotationServesOldChunksAndRekeyResealsThem() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        try filled(fixture, current: Self.keyA).close()
        let all = ByteRange(first: 0, last: 3 * Self.chunk - 1)
        let rotated = try fixture.open(options(fixture, current: Self.keyB, previous: [Self.keyA]))
        #expect(try rotated.read(all, of: Self.assetID, validator: "\"v1\"") == object)
        var reports: [RekeyProgress] = []
        let report = try rotated.rekey { reports.append($0) }
        #expect(report.chunksTotal == 3 && report.chunksResealed == 3 && report.chunksDropped == 0)
        #expect(report.assetsResealed == 1)
        #expect(reports.first?.chunksDone == 0 && reports.last == report)
        #expect(try rotated.rekey().chunksTotal == 0)
        rotated.close()
        let onlyB = try fixture.open(options(fixture, current: Self.keyB))
        defer { onlyB.close() }
        #expect(try onlyB.read(all, of: Self.assetID, validator: "\"v1\"") == object)
        #expect(try onlyB.verify(dropBad: false).bad.isEmpty)
        #expect(!fixture.logLines.all.contains { $0.contains("cache emptied") || $0.contains("were dropped") })
    }

    /// A key that matches nothing in the cache empties it with one clear log line instead of serving garbage.
    @Test func aKeyMatchingNothingEmptiesTheCacheCleanly() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        try filled(fixture, current: Self.keyA).close()
        let store = try fixture.open(options(fixture, current: Self.keyB))
        defer { store.close() }
        #expect(try store.entry(for: Self.assetID) == nil)
        #expect(try store.stats().entries == 0)
        #expect(fixture.logLines.all.filter { $0.contains("cache emptied") }.count == 1)
        try store.fill(Self.assetID, length: Self.chunk * 3, chunks: [0])
        #expect(
            try store.read(ByteRange(first: 0, last: 99), of: Self.assetID, validator: "\"v1\"")
                == Array(object[0..<100]))
    }

    /// A copy of the files taken while `rekey` runs (what `kill -9` leaves) opens and verifies: each chunk is under
    /// the old key, under the new one, or absent.
    @Test func aCrashDuringRekeyLeavesACacheThatVerifies() throws {
        try CacheFixture.withCrashCopy { fixture, copy in
            let store = try fixture.open(options(fixture, current: Self.keyA))
            for name in 0..<8 {
                try store.fill("nas://\(name)", length: Self.chunk * 3, chunks: [0, 1, 2])
            }
            store.close()
            let rotated = try fixture.open(options(fixture, current: Self.keyB, previous: [Self.keyA]))
            var copied = false
            try rotated.rekey { progress in
                guard !copied, progress.chunksDone >= 8 else { return }
                copied = true
                try? fixture.copyFiles(to: copy)
            }
            rotated.close()
            #expect(copied)
            let recovered = try copy.open(options(copy, current: Self.keyB, previous: [Self.keyA]))
            defer { recovered.close() }
            #expect(try recovered.verify(dropBad: false).bad.isEmpty)
            for name in 0..<8 {
                let present = Array(try recovered.entry(for: "nas://\(name)")?.chunks ?? ChunkSet())
                for index in present {
                    let range = ByteRange(first: index * Self.chunk, last: (index + 1) * Self.chunk - 1)
                    #expect(
                        try recovered.read(range, of: "nas://\(name)", validator: "\"v1\"")
                            == chunkBytes(index, count: Int(Self.chunk)))
                }
            }
        }
    }
}

/// Raw edits of a data file, as an attacker with the cache directory would make them.
enum RawFile {
    static func flip(_ path: String, at offset: Int64) throws {
        var bytes = try read(path, at: offset, count: 1)
        bytes[0] ^= 0x5A
        try write(path, bytes, at: offset)
    }

    static func swap(_ path: String, _ first: Int64, _ second: Int64, count: Int64) throws {
        let a = try read(path, at: first, count: Int(count))
        let b = try read(path, at: second, count: Int(count))
        try write(path, b, at: first)
        try write(path, a, at: second)
    }

    static func read(_ path: String, at offset: Int64, count: Int) throws -> [UInt8] {
        let handle = try #require(FileHandle(forReadingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        return [UInt8](try handle.read(upToCount: count) ?? Data())
    }

    static func write(_ path: String, _ bytes: [UInt8], at offset: Int64) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        defer { try? handle.close() }
        try handle.seek(toOffset: UInt64(offset))
        try handle.write(contentsOf: bytes)
    }
}

extension FileManager {
    func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }

    func permissions(_ path: String) -> Int {
        ((try? attributesOfItem(atPath: path)[.posixPermissions]) as? Int) ?? 0o777
    }
}
