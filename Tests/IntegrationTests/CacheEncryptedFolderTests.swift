import Foundation
import SluiceCrypto
import SluiceTestSupport
import Testing

extension CacheTests {
    /// Issue 32, a private cache folder: with encryption on, a copy of the cache directory taken while the gateway
    /// serves (or after it stopped) holds no block of the media, no asset ID, path component or content type, and
    /// only the owner can read it.
    @Suite struct EncryptedFolder {
        static let files = [
            ("music/Quiet Album/01 Intro.mp3", (3 << 20) + 12_345), ("films/Holiday Trip/clip.mp4", 2 << 20),
        ]

        @Test(.timeLimit(.minutes(2)))
        func theCacheFolderHoldsNoMediaBlockNameOrContentTypeAndIsPrivate() async throws {
            let cache = try await EncryptedCache(files: Self.files, chunkSize: 256 << 10)
            defer { cache.origin.stop() }
            var blocks = BlockSet()
            for file in cache.files {
                blocks.insert(blocksOf: file.data)
                // The scan finds a block wherever it lies.
                #expect(blocks.firstOffset(in: [1, 2, 3] + file.data.prefix(8192)) == 3)
            }
            var names = Self.files.flatMap { path, _ in
                [CacheFixture.assetID(path), path] + path.split(separator: "/").map(String.init)
            }
            // The key, as its file holds it and as bytes, must not be stored either.
            let key = try String(contentsOfFile: cache.key("a"), encoding: .utf8)
            func needles() -> [(label: String, bytes: [UInt8])] {
                names.map { ($0, Array($0.utf8)) } + [
                    ("the key", Array(key.utf8)), ("the key's bytes", Hex.decode(key)!),
                ]
            }
            try await cache.run("a") { gateway in
                for index in cache.files.indices {
                    let first = try await cache.get(gateway, index)
                    #expect(first.status == 200 && first.exact, "\(first.summary)")
                    names += [first.header("Content-Type"), first.header("ETag")].compactMap { $0 }
                    #expect(try await cache.untilHit(gateway, index)?.exact == true, "never a hit")
                }
                #expect(names.contains("audio/mpeg") && names.contains("video/mp4"), "\(names)")
                try Self.expectPrivate(cache.plain.directory, blocks: blocks, needles: needles(), when: "while serving")
            }
            try Self.expectPrivate(cache.plain.directory, blocks: blocks, needles: needles(), when: "after the stop")
        }

        private static func expectPrivate(
            _ directory: String, blocks: BlockSet, needles: [(label: String, bytes: [UInt8])], when: String
        ) throws {
            let scan = try RawFolderScan(directory)
            let files = scan.files
            #expect(files.count { $0.hasSuffix(".dat") } == Self.files.count, "\(when): \(files)")
            #expect(files.contains { $0.hasSuffix("/index.sqlite") }, "\(when): \(files)")
            let bytes = try files.reduce(0) { $0 + (try RawFile.size($1)) }
            print("cache encrypted folder (\(when)): scanned \(files.count) files, \(bytes) bytes")
            for (file, offset) in try scan.blocks(blocks) {
                Issue.record("\(when): a 4 KiB block of a served file is in \(file) at \(offset)")
            }
            for (file, label) in try scan.needles(needles) {
                Issue.record("\(when): \"\(label)\" is in \(file)")
            }
            for entry in scan.entries {
                let mode: mode_t = entry.isDirectory ? 0o700 : 0o600
                #expect(entry.mode == mode, "\(when): \(entry.path) has mode \(String(entry.mode, radix: 8))")
            }
        }
    }
}
