import Foundation
import Glibc
import SluiceCache
import SluiceCore
import SluiceTestSupport
import Synchronization

/// A temporary cache directory, removed by `remove()`; builds stores over it.
struct CacheFixture {
    let directory: String
    let clock = TestClock()
    let logLines = LogCollector()

    init() throws {
        let base = FileManager.default.temporaryDirectory.path + "/sluice-cache-tests"
        try FileManager.default.createDirectory(atPath: base, withIntermediateDirectories: true)
        directory = base + "/" + UUID().uuidString
    }

    func options(
        maxSize: Int64 = 64 << 20, chunkSize: Int64 = 64 << 10, key: [UInt8]? = nil, lazyCommit: Bool = false,
        hugePages: Bool = false
    ) -> CacheOptions {
        var options = CacheOptions(
            directory: directory, maxSize: maxSize, chunkSize: chunkSize,
            encryption: key.map { CacheEncryption(currentKey: $0) }, hugePages: hugePages)
        options.maxAge = .seconds(3600)
        if lazyCommit {
            options.commitInterval = .seconds(3600)
            options.commitBatchSize = .max
        }
        return options
    }

    func open(_ options: CacheOptions) throws -> ChunkStore {
        let clock = clock
        let logLines = logLines
        return try ChunkStore(
            options: options, logger: Logger(level: .debug) { logLines.append($0) }, now: { clock.now() })
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Runs `body` with a fixture and a second one for a copy of its files (copying the files of a running store
    /// is what a crash leaves behind); both are removed afterwards.
    static func withCrashCopy(_ body: (_ fixture: CacheFixture, _ copy: CacheFixture) throws -> Void) throws {
        let fixture = try CacheFixture()
        let copy = try CacheFixture()
        defer {
            fixture.remove()
            copy.remove()
        }
        try body(fixture, copy)
    }

    /// Copies the cache directory to `copy`'s.
    func copyFiles(to copy: CacheFixture) throws {
        try FileManager.default.copyItem(atPath: directory, toPath: copy.directory)
    }

    /// Allocated bytes of every file and directory under the cache directory, itself included.
    func allocatedBytes() -> Int64 {
        var total = Self.allocated(directory)
        for path in FileManager.default.enumerator(atPath: directory)?.compactMap({ $0 as? String }) ?? [] {
            total += Self.allocated(directory + "/" + path)
        }
        return total
    }

    /// Descriptors of this process open on files under the cache directory.
    func openDescriptors() -> Int {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return entries.filter { entry in
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + entry))?
                .hasPrefix(directory) ?? false
        }.count
    }

    /// Mappings of this process on data files under the cache directory (`/proc/self/maps` lines; an unlinked
    /// file's line ends in " (deleted)"). SQLite's shared-memory file is not counted.
    func mappedDataFiles() -> Int {
        // Read to the end in a loop: a /proc file reports no size.
        let maps =
            FileHandle(forReadingAtPath: "/proc/self/maps").map {
                String(decoding: $0.readDataToEndOfFile(), as: UTF8.self)
            } ?? ""
        return maps.split(separator: "\n").filter { line in
            line.contains(directory + "/") && (line.hasSuffix(".dat") || line.hasSuffix(".dat (deleted)"))
        }.count
    }

    /// The data file of an asset, located by its key as the store names it.
    func dataFiles() -> [String] {
        let data = directory + "/data"
        return (FileManager.default.enumerator(atPath: data)?.compactMap { $0 as? String } ?? [])
            .filter { $0.hasSuffix(".dat") }.map { data + "/" + $0 }
    }

    private static func allocated(_ path: String) -> Int64 {
        var info = stat()
        guard lstat(path, &info) == 0 else { return 0 }
        return Int64(info.st_blocks) * 512
    }
}

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_700_000_000))

    func now() -> Date { current.withLock { $0 } }

    func advance(seconds: Double) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}

/// Collects log lines.
final class LogCollector: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }

    var all: [String] { lines.withLock { $0 } }
}

/// Deterministic test bytes: chunk `index` of an asset filled from `seed`.
func chunkBytes(_ index: Int64, count: Int, seed: UInt8 = 1) -> [UInt8] {
    SeededGenerator.bytes(count, seed: UInt64(index) << 8 | UInt64(seed))
}

/// The whole object of `length` bytes cut into chunks of `chunkSize`, as `chunkBytes` produces them.
func objectBytes(length: Int64, chunkSize: Int64, seed: UInt8 = 1) -> [UInt8] {
    stride(from: Int64(0), to: length, by: Int(chunkSize)).flatMap { start in
        chunkBytes(start / chunkSize, count: Int(min(chunkSize, length - start)), seed: seed)
    }
}

extension ChunkStore {
    /// Records content info and writes every chunk listed, as a fill would.
    func fill(
        _ assetID: String, length: Int64, etag: String = "\"v1\"", chunks: [Int64], seed: UInt8 = 1
    ) throws {
        let info = ContentInfo(length: length, contentType: "audio/mpeg", etag: etag)
        if try entry(for: assetID)?.validator != info.validator {
            _ = try recordContentInfo(info, for: assetID, at: Date(timeIntervalSince1970: 1_700_000_000))
        }
        let chunkSize = options.chunkSize
        for index in chunks {
            let count = Int(min(chunkSize, length - index * chunkSize))
            try write(chunk: index, of: assetID, bytes: chunkBytes(index, count: count, seed: seed), validator: etag)
        }
    }
}
