import Foundation
import SluiceCrypto
import SluiceGateway
import SluiceTestSupport
import Testing

extension CacheTests {
    /// Issue 3, crash safety: `kill -9` during concurrent fills never leaves a wrong byte in the cache, plaintext or
    /// encrypted.
    @Suite struct Crash {
        /// Per-connection rate of the origin's `/slow/` prefix: fills are still running when the kill comes.
        static let slowRate = 4 << 20

        @Test(.timeLimit(.minutes(3)))
        func killNineDuringFillsTenTimesLeavesNoWrongByte() async throws {
            let cache = try TemporaryDirectory()
            try await Self.killDuringFills(
                files: 8, fileSize: 32 << 20, rounds: 10, CacheFixture.Settings(directory: cache.file("cache")))
        }

        /// Issue 32: the same with encryption on, in fewer rounds and smaller chunks (more of them are stored
        /// between kills).
        @Test(.timeLimit(.minutes(2)))
        func killNineDuringEncryptedFillsLeavesACacheThatVerifies() async throws {
            let cache = try TemporaryDirectory()
            let key = try cache.write("cache.key", Array(Hex.encode(SecureRandom.bytes(count: 32)).utf8))
            chmod(key, 0o600)
            try await Self.killDuringFills(
                files: 4, fileSize: 16 << 20, rounds: 3,
                CacheFixture.Settings(directory: cache.file("cache"), chunkSize: 256 << 10, keyFile: key))
        }

        /// Starts `rounds` gateways with `settings` over the slow origin and kills each (`kill -9`) during
        /// concurrent fills of `files` files, checking every byte readers got; then `sluice cache verify` must find
        /// no bad chunk, and every file must read back byte-exact, partly from the chunks that survived the kills.
        private static func killDuringFills(
            files: Int, fileSize: Int, rounds: Int, _ settings: CacheFixture.Settings
        ) async throws {
            let seed = UInt64(Date().timeIntervalSince1970 * 1000)
            print("cache crash: seed \(seed)")
            var generator = SeededGenerator(seed: seed)
            let content = try TemporaryDirectory()
            let data = try await concurrentMap(Array(0..<files), width: 2) { index in
                try await RandomData.file("f\(index).bin", in: content, count: fileSize)
            }
            let origin = try await Peer.faultOrigin(root: content.path, options: ["--slow-rate", "\(Self.slowRate)"])
            defer { origin.stop() }

            for round in 1...rounds {
                let delay = Int.random(in: 200...800, using: &generator)
                let gateway = try await GatewayProcess.start(configJSON: settings.json(baseURL: origin.url("slow/")))
                defer { gateway.process.stop() }
                let readers = (0..<files).map { index in
                    Task {
                        try await CacheStreamClient.get(
                            port: gateway.port, target: CacheFixture.target("f\(index).bin"),
                            expected: .bytes(data[index], offset: 0), timeoutSeconds: 20)
                    }
                }
                try await Task.sleep(for: .milliseconds(delay))
                let status = await gateway.stop(signal: SIGKILL, timeout: .seconds(10))
                #expect(status == .signaled(SIGKILL), "round \(round): the gateway ended with \(status)")
                var received: Int64 = 0
                for (index, reader) in readers.enumerated() {
                    // A reader killed before its response head has nothing to check.
                    guard let response = try? await reader.value else { continue }
                    received += response.received
                    #expect(
                        response.mismatchAt == nil,
                        "round \(round), f\(index).bin: wrong byte at \(response.mismatchAt!)")
                }
                print(
                    "cache crash: round \(round) killed after \(delay) ms; "
                        + "readers had \(CacheFixture.mebibytes(received))")
            }

            let verify = try await CacheFixture.command(["verify", "--json"], settings)
            #expect(verify.status == 0, "\(verify.output)\(verify.errors)")
            let report = try AdminJSON.decode(AdminVerifyReport.self, from: Array(verify.output.utf8))
            print("cache crash: verify checked \(report.chunksChecked) chunks, bad \(report.bad.count)")
            #expect(report.bad.isEmpty && report.chunksChecked > 0, "\(report)")

            // Read everything back through a fast upstream: cached chunks come from disk, the rest is fetched.
            try await origin.resetStats()
            let total = Int64(files * fileSize)
            try await GatewayProcess.run(configJSON: settings.json(baseURL: origin.url(""))) { gateway in
                for index in 0..<files {
                    let response = try await CacheStreamClient.get(
                        port: gateway.port, target: CacheFixture.target("f\(index).bin"),
                        expected: .bytes(data[index], offset: 0))
                    #expect(response.status == 200)
                    #expect(response.exact, "f\(index).bin: \(response.summary)")
                }
            }
            let fetched = Int64(try await CacheFixture.settledStats(origin).bytes)
            print(
                "cache crash: final read fetched \(CacheFixture.mebibytes(fetched)) "
                    + "of \(CacheFixture.mebibytes(total)); "
                    + "the rest came from chunks cached across the kills")
            #expect(fetched < total, "nothing cached before the kills survived them")
        }
    }
}
