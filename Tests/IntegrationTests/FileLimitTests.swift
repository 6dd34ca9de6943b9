import Foundation
import SluiceTestSupport
import Testing

/// `sluice serve` raises its soft open-file limit to the hard limit, so that a service started with the common
/// soft limit of 1024 (or less) can hold `server.maxConnections` connections, their responses and its cache files.
@Suite struct FileLimitTests {
    /// The soft and hard "Max open files" of process `pid`.
    private func openFileLimits(of pid: pid_t) -> (soft: String, hard: String)? {
        let limits = (try? String(contentsOfFile: "/proc/\(pid)/limits", encoding: .utf8)) ?? ""
        guard let line = limits.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) else {
            return nil
        }
        let fields = line.dropFirst("Max open files".count).split(separator: " ")
        return fields.count >= 2 ? (String(fields[0]), String(fields[1])) : nil
    }

    @Test func softLimitIsRaisedToTheHardLimitAtStart() async throws {
        let media = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: media, count: 100_000)
        let config = """
            {
              "server": { "listen": "127.0.0.1:0" },
              "cache": { "directory": "./cache" },
              "upstreams": { "local": { "kind": "directory", "root": "\(media.path)" } },
              "logging": { "level": "info" }
            }
            """
        let gateway = try await GatewayProcess.start(configJSON: config, softFileLimit: 256)
        defer { gateway.process.stop() }
        let limits = try #require(openFileLimits(of: gateway.pid))
        #expect(limits.soft == limits.hard || (Int(limits.soft) ?? 0) == 1 << 20, "\(limits)")
        #expect((Int(limits.soft) ?? 0) > 256 || limits.soft == "unlimited", "\(limits)")
        #expect(gateway.log().contains("open-file limit raised"), "\(gateway.log())")
        let response = try await TestHTTP.get(gateway.url("/stream/local/a.bin"))
        #expect(response.status == 200)
        #expect(Data(response.body) == Data(data))
    }
}
