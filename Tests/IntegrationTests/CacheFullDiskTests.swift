import Foundation
import SluiceTestSupport
import Testing

extension CacheTests {
    /// Issue 3, bad input: a cache directory on a full (small) filesystem degrades to streaming through: every byte
    /// correct, the gateway keeps running, later requests work.
    @Suite struct FullDisk {
        static let fileSize = 64 << 20

        @Test(.timeLimit(.minutes(3)))
        func aFullDiskStreamsThroughWithoutACrash() async throws {
            let content = try TemporaryDirectory()
            let data = try await RandomData.file("long.bin", in: content, count: Self.fileSize)
            let origin = try await Peer.faultOrigin(root: content.path)
            defer { origin.stop() }
            let disk = try CacheSmallDisk(assetID: CacheFixture.assetID("long.bin"))
            defer { disk.release() }
            print("cache full disk: cache on \(disk.kind)")
            // The cap is far above what the filesystem holds: only the disk can refuse chunks.
            let settings = CacheFixture.Settings(directory: disk.directory, maxSize: 4 << 30)

            try await GatewayProcess.run(configJSON: settings.json(baseURL: origin.url(""))) { gateway in
                try await disk.arm()
                let first = try await CacheStreamClient.get(
                    port: gateway.port, target: CacheFixture.target("long.bin"), expected: .bytes(data, offset: 0))
                #expect(first.status == 200)
                #expect(first.exact, "first read: \(first.summary)")
                print("cache full disk: after the first read, \(disk.usage())")
                #expect(disk.isFull, "the cache never ran out of room: \(disk.usage())")

                let health = try await TestHTTP.get(gateway.url("/healthz"))
                #expect(health.status == 200)
                let second = try await CacheStreamClient.get(
                    port: gateway.port, target: CacheFixture.target("long.bin"), expected: .bytes(data, offset: 0))
                #expect(second.status == 200)
                #expect(second.exact, "second read: \(second.summary)")
                let tail = Self.fileSize - 3_000_000
                let range = try await CacheStreamClient.get(
                    port: gateway.port, target: CacheFixture.target("long.bin"), headers: ["Range": "bytes=\(tail)-"],
                    expected: .bytes(data, offset: Int64(tail)))
                #expect(range.status == 206)
                #expect(range.exact)
                #expect(gateway.process.exitStatus == nil, "the gateway ended: \(gateway.log())")
            }
        }
    }
}
