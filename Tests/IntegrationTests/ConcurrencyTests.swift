import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// 200 clients at once, each streaming a different 1 MiB range of a 64 MiB file through a gateway process in front
/// of nginx: every byte right, resident memory bounded, and no descriptor left open afterwards.
@Suite struct ConcurrencyTests {
    static let clients = 200
    static let rangeLength = 1 << 20
    /// Generous: 200 responses in flight need buffers, not copies of the file.
    static let rssBound = 1 << 30
    /// Descriptors allowed above the idle count once the load is over: libcurl's connection cache keeps up to 64
    /// idle keep-alive connections to the upstream for reuse (that is its purpose, not a leak: fills that end with
    /// their response leave them open), and the cache may keep data files open; anything per client (200) must be
    /// gone.
    static let descriptorSlack = 64 + 8

    @Test func twoHundredConcurrentRangesAreRightWithBoundedMemoryAndNoDescriptorLeak() async throws {
        let media = try await MediaFixture()
        let nginx = try await Peer.nginx(serving: media.folder.path)
        let config = """
            {
              "server": { "listen": "127.0.0.1:0", "shutdownGrace": "2s", "maxConnectionsPerIP": 512 },
              "cache": { "directory": "./cache" },
              "logging": { "level": "info" },
              "upstreams": { "cdn": { "kind": "http", "baseURL": "\(nginx.baseURL)" } }
            }
            """
        try await GatewayProcess.run(configJSON: config) { gateway in
            let warm = try await RawHTTP.request(port: gateway.port, target: "/healthz")
            #expect(warm.status == 200)
            try await Task.sleep(for: .milliseconds(300))
            let idle = try #require(ProcessProbe.openDescriptorCount(of: gateway.pid))
            let idleRSS = ProcessProbe.residentBytes(of: gateway.pid) ?? 0

            let target = StreamPath.target("cdn", media.path)
            let length = media.data.count
            let step = (length - Self.rangeLength) / (Self.clients - 1)
            let sampler = PeakRSSSampler(pid: gateway.pid)
            let started = ContinuousClock.now
            let failures = try await concurrentMap(Array(0..<Self.clients), width: Self.clients) { client -> String? in
                let first = client * step + client % 7
                let last = first + Self.rangeLength - 1
                let result = try await RawHTTP.request(
                    port: gateway.port, target: target, headers: ["Range": "bytes=\(first)-\(last)"],
                    timeoutSeconds: 120)
                guard result.status == 206, result.header("Content-Range") == "bytes \(first)-\(last)/\(length)" else {
                    return "client \(client): \(result.status) \(result.header("Content-Range") ?? "-")"
                }
                return result.body.firstDifference(from: media.data[first...last]).map {
                    "client \(client): bytes \(first)-\(last) differ at \($0) of \(result.body.count)"
                }
            }.compactMap { $0 }
            let elapsed = ContinuousClock.now - started
            let peak = await sampler.stop()
            #expect(failures.isEmpty, "\(failures.count) clients got wrong answers: \(failures.prefix(5))")
            #expect(sampler.sampleCount > 0)
            #expect(peak < Self.rssBound, "peak RSS \(peak >> 20) MiB")
            print(
                "concurrency: \(Self.clients) clients x 1 MiB in \(elapsed); gateway RSS idle \(idleRSS >> 20) MiB, "
                    + "peak \(peak >> 20) MiB (\(sampler.sampleCount) samples)")

            var settled = ProcessProbe.openDescriptorCount(of: gateway.pid) ?? .max
            let deadline = ContinuousClock.now + .seconds(5)
            while settled > idle + Self.descriptorSlack, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
                settled = ProcessProbe.openDescriptorCount(of: gateway.pid) ?? .max
            }
            print("concurrency: gateway descriptors idle \(idle), after the load \(settled)")
            #expect(
                settled <= idle + Self.descriptorSlack,
                "descriptors: idle \(idle), after \(settled): \(ProcessProbe.descriptorTargets(of: gateway.pid))")
            #expect(await gateway.stop() == .exited(0))
        }
        withExtendedLifetime(nginx) {}
    }
}
