import Foundation
import SluiceGateway
import SluiceTestSupport
import Testing

extension CacheTests {
    /// Issue 32, key rotation: chunks sealed under a previous key are served, `rekey` (online through the admin API,
    /// offline through the CLI) re-seals every one, after which the previous key can go; a key that matches
    /// nothing empties the cache with one log line.
    @Suite struct KeyRotation {
        static let chunkSize: Int64 = 256 << 10
        /// Whole chunks and a short last one.
        static let files = [("a.bin", 1 << 20), ("b.bin", (1 << 20) + 70_000), ("c.bin", 300_000)]

        @Test(.timeLimit(.minutes(2)))
        func rekeyedCachesServeHitsAfterThePreviousKeyIsRemoved() async throws {
            let cache = try await EncryptedCache(files: Self.files, chunkSize: Self.chunkSize)
            defer { cache.origin.stop() }
            let chunks = cache.chunkCount
            try await cache.warm("a")
            try await cache.origin.resetStats()

            try await cache.run("b", previous: ["a"]) { gateway in
                try await cache.expectAll(gateway, cache: "HIT", "under b with a still read")
                let done = try await EncryptedCache.rekey(gateway)
                print("cache key rotation: online rekey \(done)")
                #expect(done.state == "done", "\(done)")
                #expect(done.chunksTotal == chunks && done.chunksResealed == chunks && done.chunksDropped == 0)
                #expect(try await EncryptedCache.corruptEvictions(gateway) == 0)
            }
            try await cache.run("b") { gateway in
                try await cache.expectAll(gateway, cache: "HIT", "under b alone")
                #expect(!gateway.log().contains("dropped"), "\(gateway.log())")
            }

            let offline = try await cache.command("rekey", "c", previous: ["b"])
            #expect(offline.status == 0, "\(offline.output)\(offline.errors)")
            let report = try AdminJSON.decode(AdminRekey.self, from: Array(offline.output.utf8))
            print("cache key rotation: offline rekey \(report)")
            #expect(report.state == "done" && report.chunksResealed == chunks && report.chunksDropped == 0)
            try await cache.run("c") { gateway in
                try await cache.expectAll(gateway, cache: "HIT", "under c alone")
                #expect(!gateway.log().contains("dropped"), "\(gateway.log())")
            }
            let stats = try await CacheFixture.settledStats(cache.origin)
            #expect(stats.requests == 0 && stats.bytes == 0, "the upstream was asked \(stats.requests) times")
        }

        @Test(.timeLimit(.minutes(2)))
        func aKeyMatchingNothingEmptiesTheCacheOnceAndStreamsStayExact() async throws {
            let cache = try await EncryptedCache(files: Self.files, chunkSize: Self.chunkSize)
            defer { cache.origin.stop() }
            try await cache.warm("a")
            try await cache.origin.resetStats()

            try await cache.run("wrong") { gateway in
                let emptied = gateway.logLines.filter { $0.contains("cache emptied") }
                #expect(emptied.count == 1, "\(gateway.log())")
                #expect(!gateway.log().contains(try String(contentsOfFile: cache.key("wrong"), encoding: .utf8)))
                try await cache.expectAll(gateway, cache: "MISS", "under a key matching nothing")
            }
            #expect(Int64(try await CacheFixture.settledStats(cache.origin).bytes) == cache.totalBytes)
            try await cache.origin.resetStats()
            try await cache.run("wrong") { gateway in
                #expect(!gateway.log().contains("cache emptied"), "\(gateway.log())")
                try await cache.expectAll(gateway, cache: "HIT", "the emptied cache, filled again")
            }
            #expect(try await CacheFixture.settledStats(cache.origin).bytes == 0)
        }
    }
}
