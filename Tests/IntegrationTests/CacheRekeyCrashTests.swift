import Foundation
import SluiceGateway
import SluiceTestSupport
import Testing

extension CacheTests {
    /// Issue 32, crash safety of rotation: `kill -9` in the middle of an online rekey leaves a cache that verifies,
    /// whose streams are byte-exact, and whose rekey can be run again to the end (`sluice cache rekey --server`).
    @Suite struct RekeyCrash {
        /// 64 MiB in 512 chunks: the rekey runs long enough to be killed half-way.
        static let chunkSize: Int64 = 128 << 10
        static let files = (0..<4).map { ("r\($0).bin", 16 << 20) }

        @Test(.timeLimit(.minutes(3)))
        func killNineDuringAnOnlineRekeyLeavesACacheThatVerifies() async throws {
            let cache = try await EncryptedCache(files: Self.files, chunkSize: Self.chunkSize)
            defer { cache.origin.stop() }
            let chunks = cache.chunkCount
            try await cache.warm("a")

            let gateway = try await cache.start("b", previous: ["a"])
            defer { gateway.process.stop() }
            let idle = try await EncryptedCache.admin(gateway, "GET", "/admin/cache/rekey")
            #expect(try AdminJSON.decode(AdminRekey.self, from: idle.body).state == "idle", "\(idle.text)")
            let started = ContinuousClock.now
            let killedAt = try await EncryptedCache.rekey(gateway) { $0.chunksResealed >= chunks / 8 || $0.isFinished }
            // One rekey at a time.
            let second = try await EncryptedCache.admin(gateway, "POST", "/admin/cache/rekey")
            let status = await gateway.stop(signal: SIGKILL, timeout: .seconds(10))
            #expect(second.status == 409, "\(second.everything)")
            print("cache rekey crash: killed \(ContinuousClock.now - started) into the rekey at \(killedAt)")
            #expect(status == .signaled(SIGKILL))
            #expect(killedAt.state == "running" && killedAt.chunksTotal == chunks, "\(killedAt)")

            let verify = try await cache.command("verify", "b", previous: ["a"])
            #expect(verify.status == 0, "\(verify.output)\(verify.errors)")
            let report = try AdminJSON.decode(AdminVerifyReport.self, from: Array(verify.output.utf8))
            print("cache rekey crash: verify checked \(report.chunksChecked) of \(chunks) chunks")
            #expect(report.bad.isEmpty && report.chunksChecked > 0, "\(report)")

            try await cache.origin.resetStats()
            try await cache.run("b", previous: ["a"]) { gateway in
                try await cache.expectAll(gateway, cache: nil, "after the kill")
                let fetched = Int64(try await CacheFixture.settledStats(cache.origin).bytes)
                print("cache rekey crash: the reads fetched \(CacheFixture.mebibytes(fetched)) again")
                #expect(fetched < cache.totalBytes / 2, "most chunks survived the kill")
                for index in cache.files.indices {
                    #expect(try await cache.untilHit(gateway, index) != nil, "\(cache.files[index].path) never a hit")
                }
                // Run again to the end through the CLI, which starts it and polls its progress.
                let again = try await CommandRun.run(
                    try Repository.sluiceExecutable(), ["cache", "rekey", "--json", "--server", gateway.url("")],
                    environment: [EncryptedCache.tokenVariable: EncryptedCache.token])
                #expect(again.status == 0, "\(again.output)\(again.errors)")
                let rest = try AdminJSON.decode(AdminRekey.self, from: Array(again.output.utf8))
                print("cache rekey crash: the rekey run again with --server \(rest)")
                #expect(rest.state == "done" && rest.chunksDropped == 0, "\(rest)")
                #expect(rest.chunksTotal > 0 && rest.chunksResealed == rest.chunksTotal, "\(rest)")
            }
            try await cache.origin.resetStats()
            try await cache.run("b") { gateway in
                try await cache.expectAll(gateway, cache: "HIT", "under b alone")
            }
            #expect(try await CacheFixture.settledStats(cache.origin).bytes == 0)
        }
    }
}
