import Foundation
import Glibc
import SluiceTestSupport
import Testing

@testable import SluiceCache

/// A data file's read-only mapping (``DataFileHandle``) is advised `MADV_HUGEPAGE` when the store lays files out
/// for huge pages (``CacheOptions/hugePages``): pages it faults in from disk come back in huge-page folios, which
/// the kernel maps with one PMD entry each.
@Suite(.ownThread) struct DataFileMappingTests {
    @Test(
        "pages a data file's mapping reads back from disk are mapped as huge pages, unless turned off",
        arguments: [true, false])
    func coldPagesComeBackHuge(hugePages: Bool) throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let hugePage = Int(ChunkStoreRunWriteTests.hugePage)
        try #require(hugePage <= 32 << 20, "a huge page this large would need a very large file")
        // Two huge pages written in 1 MiB pieces (small folios), synced, then dropped from the page cache.
        let length = 2 * hugePage
        let bytes = SeededGenerator.bytes(length, seed: 11)
        try FileManager.default.createDirectory(atPath: fixture.directory, withIntermediateDirectories: true)
        let path = fixture.directory + "/cold.dat"
        try writeReference(bytes, to: path, pieces: Array(repeating: 1 << 20, count: length >> 20))
        try dropFromPageCache(path)

        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        let handle = DataFileHandle(descriptor: descriptor, mappedLength: Int64(length), hugePages: hugePages)
        let mapping = try #require(handle.mapping)
        // Random order: without the advice, faults read the file back around each page in small folios.
        var generator = SeededGenerator(seed: 5)
        let pages = Array(stride(from: 0, to: length, by: Int(sysconf(Int32(_SC_PAGESIZE))))).shuffled(
            using: &generator)
        SharedFileMapping.touchEveryPage(of: mapping, order: pages)
        #expect(memcmp(mapping.baseAddress!, bytes, length) == 0)
        let mapped = try SharedFileMapping.filePmdMappedBytes(of: mapping.baseAddress!)

        if !hugePages {
            #expect(mapped == 0, "FilePmdMapped \(mapped) of \(length) bytes")
            return
        }
        // The advice does nothing where transparent huge pages are off.
        let enabled = (try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8))
        if enabled?.contains("[never]") == false {
            #expect(mapped == length, "FilePmdMapped \(mapped) of \(length) bytes")
        }
    }

    /// Syncs `path` and asks the kernel to drop its clean, unmapped pages (`POSIX_FADV_DONTNEED`).
    private func dropFromPageCache(_ path: String) throws {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        try #require(fdatasync(descriptor) == 0)
        try #require(posix_fadvise(descriptor, 0, 0, POSIX_FADV_DONTNEED) == 0)
    }
}
