import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// Clients that send their heads or read their responses too slowly are closed by time, and while they wait,
/// everyone else is served.
@Suite struct SlowClientTests {
    /// Long enough that a loaded machine serves the normal client's ranges before the first slow head's deadline.
    static let headerTimeout = 15

    static func run(idleTimeout: Int = 60, _ body: (TestGateway, [UInt8]) async throws -> Void) async throws {
        let media = try TemporaryDirectory()
        let bytes = try await RandomData.file("big.bin", in: media, count: 16 << 20)
        let configure: (inout SluiceConfig) -> Void = { config in
            // 300 slow connections from one address: the per-address cap (256 by default) would keep some out.
            config.server.maxConnections = 1_024
            config.server.maxConnectionsPerIP = 512
            config.server.headerTimeout = .seconds(headerTimeout)
            config.server.idleTimeout = .seconds(idleTimeout)
            config.logging.level = .info
            config.cache.revalidateAfter = .seconds(3_600)
        }
        try await TestGateway.run(upstreams: [.directory("media", root: media.path)], configure: configure) {
            try await body($0, bytes)
        }
    }

    @Test("300 slowloris connections, a byte every 2 s, do not stop normal clients; each is closed by headerTimeout")
    func slowloris() async throws {
        try await Self.run { gateway, bytes in
            let port = gateway.port
            let (opened, signal) = AsyncStream<Void>.makeStream()
            let started = ContinuousClock.now
            async let lifetimes = onOwnThread {
                try RawHTTP.drip(
                    connections: 300, port: port, interval: .seconds(2), limit: .seconds(40), since: started,
                    opened: { signal.yield() })
            }
            for await _ in opened { break }
            var firstServed: Duration?
            for (first, last) in [(0, 65_535), (5_000_000, 6_999_999), (16_000_000, 16_777_215)] {
                let result = try await RawHTTP.request(
                    port: port, target: "/stream/media/big.bin", headers: ["Range": "bytes=\(first)-\(last)"],
                    timeoutSeconds: 10)
                #expect(result.status == 206)
                #expect(result.body.firstDifference(from: bytes[first...last]) == nil, "bytes \(first)-\(last)")
                if firstServed == nil { firstServed = ContinuousClock.now - started }
            }
            let servedAfter = try #require(firstServed)
            let closedAfter = try await lifetimes
            #expect(closedAfter.count == 300, "\(300 - closedAfter.count) slowloris connections were never closed")
            // A normal client was served while every slow connection was still open: each was seen closed only after.
            #expect(closedAfter.allSatisfy { $0 > servedAfter }, "\(closedAfter.min() ?? .zero) < \(servedAfter)")
            #expect(closedAfter.allSatisfy { $0 >= .seconds(Self.headerTimeout) }, "\(closedAfter.min() ?? .zero)")
            // The deadline, a sweep a second, a drip round of 2 s, and slack for a loaded machine.
            #expect(closedAfter.allSatisfy { $0 <= .seconds(Self.headerTimeout + 10) }, "\(closedAfter.max() ?? .zero)")
        }
    }

    @Test("a client that reads nothing of its response is closed after idleTimeout, on a miss and on a hit")
    func slowReader() async throws {
        try await Self.run(idleTimeout: 2) { gateway, bytes in
            for (id, expected) in [("slow-miss", "MISS"), ("slow-hit", "HIT")] {
                if expected == "HIT" {
                    let warm = try await TestHTTP.get(gateway.streamURL("media", "big.bin"))
                    #expect(warm.status == 200 && warm.body.count == bytes.count)
                    #expect(
                        await Poll.until(within: .seconds(20)) {
                            (try? await TestHTTP.head(gateway.streamURL("media", "big.bin")))?.header("X-Cache")
                                == "HIT"
                        })
                }
                let port = gateway.port
                let descriptor = try await onOwnThread {
                    let descriptor = try RawHTTP.connect(port: port, receiveBuffer: 4_096)
                    try RawHTTP.send(
                        Array("GET /stream/media/big.bin HTTP/1.1\r\nHost: t\r\nX-Request-Id: \(id)\r\n\r\n".utf8),
                        to: descriptor)
                    return descriptor
                }
                defer { close(descriptor) }
                // The gateway gives up on the response: its access line says it was aborted, with few bytes sent.
                let line = await Poll.value(within: .seconds(30)) {
                    gateway.log.lines(containing: "request.id=\(id)").first
                }
                let logged = try #require(line, "the response to a client reading nothing was never closed")
                #expect(logged.contains("aborted=true") && logged.contains("cache.status=\(expected)"), "\(logged)")
                let sent = logged.split(separator: " ").first { $0.hasPrefix("bytes=") }.flatMap {
                    Int($0.dropFirst(6))
                }
                #expect(sent.map { $0 < bytes.count / 2 } == true, "\(logged)")
                // Closed by the idle timeout (2 s without progress), not at once.
                let lasted = logged.split(separator: " ").first { $0.hasPrefix("duration.ms=") }
                    .flatMap { Double($0.dropFirst(12)) }
                #expect(lasted.map { $0 >= 1_900 } == true, "\(logged)")
            }
        }
    }
}
