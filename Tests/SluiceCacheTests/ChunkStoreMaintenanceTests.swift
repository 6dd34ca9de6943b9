import Foundation
import SluiceCache
import SluiceCore
import Testing

@Suite(.ownThread) struct ChunkStoreMaintenanceTests {
    @Test func backgroundMaintenanceSweepsAndRemovesOrphans() async throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        var options = fixture.options(chunkSize: 4096)
        options.maintenanceInterval = .milliseconds(20)
        let store = try fixture.open(options)
        try store.fill("nas://idle", length: 100, chunks: [0])
        try store.fill("nas://kept", length: 100, chunks: [0])
        try store.pin("nas://kept", true)
        store.flush()
        let orphan = fixture.directory + "/data/cd/" + String(repeating: "cd", count: 32) + ".dat"
        try FileManager.default.createDirectory(
            atPath: fixture.directory + "/data/cd", withIntermediateDirectories: true)
        try Data(count: 100).write(to: URL(fileURLWithPath: orphan))
        fixture.clock.advance(seconds: 7200)

        store.startMaintenance()
        store.startMaintenance()
        var done = false
        for _ in 0..<300 where !done {
            try await Task.sleep(for: .milliseconds(10))
            done = try store.entry(for: "nas://idle") == nil && !FileManager.default.fileExists(atPath: orphan)
        }
        #expect(done)
        #expect(try store.entry(for: "nas://kept")?.chunks == ChunkSet([0]))
        store.close()
        store.close()
        #expect(throws: CacheError.closed) { try store.stats() }
        #expect(fixture.openDescriptors() == 0)
    }

    @Test func purgeAllWhileAReaderHoldsARegion() throws {
        let fixture = try CacheFixture()
        defer { fixture.remove() }
        let store = try fixture.open(fixture.options(chunkSize: 4096))
        defer { store.close() }
        try store.fill("nas://a", length: 10_000, chunks: [0, 1, 2])
        let region = try #require(
            store.fileRegion(ByteRange(first: 0, last: 9_999), of: "nas://a", validator: "\"v1\""))
        try store.purgeAll()
        // The unlinked file stays readable, through a descriptor and through its mapping, until the transfer ends.
        let descriptor = try #require(region.openDescriptor())
        var buffer = [UInt8](repeating: 0, count: 10_000)
        #expect(pread(descriptor, &buffer, buffer.count, 0) == 10_000)
        close(descriptor)
        #expect(buffer == objectBytes(length: 10_000, chunkSize: 4096))
        #expect(region.mapped.map { Array($0.bytes) } == buffer)
        region.lease.release()
        #expect(try store.entry(for: "nas://a") == nil)
    }
}
