import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// The gateway process against clients that abandon requests, drip their heads and frame requests ambiguously, all
/// from one address (as behind a balancer): each is dropped or refused, and afterwards the gateway is alive, holds
/// no more descriptors than when idle, and serves a ranged GET byte for byte.
@Suite struct HostileClientTests {
    @Test func abandonedDrippedAndSmuggledRequestsLeaveTheGatewayAsItWas() async throws {
        let content = try TemporaryDirectory()
        let data = try await RandomData.file("data.bin", in: content, count: 400_000)
        let origin = try await Peer.faultOrigin(root: content.path)
        let config = """
            {
              "server": { "listen": "127.0.0.1:0", "headerTimeout": "1s", "maxConnectionsPerIP": 256 },
              "cache": { "directory": "./cache" },
              "upstreams": { "web": { "kind": "http", "baseURL": "\(origin.baseURL)" } }
            }
            """
        try await GatewayProcess.run(configJSON: config) { gateway in
            let port = gateway.port
            try await Self.expectRangedGet(port: port, data: data, first: 0, last: 99_999)
            let idle = try #require(ProcessProbe.openDescriptorCount(of: gateway.pid))

            // 300 heads cut off mid-field, then closed: more than the per-address limit.
            let partial = Array("GET /stream/web/data.bin HTTP/1.1\r\nHost: t\r\nRange: bytes=0-".utf8)
            try await onOwnThread {
                for _ in 0..<300 {
                    let descriptor = try RawHTTP.connect(port: port)
                    try RawHTTP.send(partial, to: descriptor)
                    close(descriptor)
                }
            }
            // Connections still in the listen backlog are accepted, then released within one sweep.
            let served = await Poll.value(within: .seconds(15)) {
                try? await RawHTTP.request(
                    port: port, target: "/stream/web/data.bin", headers: ["Range": "bytes=1000-1999"],
                    timeoutSeconds: 2)
            }
            #expect(served?.status == 206, "no answer after 300 abandoned requests")
            #expect(served?.body.firstDifference(from: data[1000...1999]) == nil)

            // 60 heads dripped a byte every 100 ms: closed once a second old, while a plain request is served.
            async let lifetimes = onOwnThread { try RawHTTP.drip(connections: 60, port: port) }
            try await Self.expectRangedGet(port: port, data: data, first: 5, last: 70_004)
            let closedAfter = try await lifetimes
            #expect(closedAfter.count == 60, "\(60 - closedAfter.count) dripping connections were never closed")
            // A 1 s deadline, a sweep a second, and slack for a loaded machine: far below the 60 s idle timeout.
            #expect(closedAfter.allSatisfy { $0 <= .seconds(8) }, "\(closedAfter.max() ?? .zero)")

            // A body framed two ways: refused, and the request hidden in it is never answered.
            let smuggled = Array(
                ("GET /stream/web/data.bin HTTP/1.1\r\nHost: t\r\nContent-Length: 41\r\n"
                    + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\nGET /admin/cache HTTP/1.1\r\nHost: t\r\n\r\n").utf8)
            let answer = try await onOwnThread { () throws -> [UInt8] in
                let descriptor = try RawHTTP.connect(port: port, timeoutSeconds: 10)
                defer { close(descriptor) }
                try RawHTTP.send(smuggled, to: descriptor)
                var received: [UInt8] = []
                var buffer = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = recv(descriptor, &buffer, buffer.count, 0)
                    if count <= 0 { return received }
                    received += buffer[..<count]
                }
            }
            let text = String(decoding: answer, as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 400"), "\(text.prefix(80))")
            #expect(text.components(separatedBy: "HTTP/1.1 ").count == 2, "more than one response: \(text)")

            try await HostileUpstreamTests.expectDescriptorsSettle(gateway, at: idle)
            try await Self.expectRangedGet(port: port, data: data, first: 123_456, last: 399_999)
            #expect(gateway.process.exitStatus == nil)
            #expect(await gateway.stop() == .exited(0))
        }
    }

    /// A ranged GET of `first...last` answers 206 with exactly those bytes of `data`.
    static func expectRangedGet(port: Int, data: [UInt8], first: Int, last: Int) async throws {
        let result = try await RawHTTP.request(
            port: port, target: "/stream/web/data.bin", headers: ["Range": "bytes=\(first)-\(last)"])
        #expect(result.status == 206)
        #expect(result.header("Content-Range") == "bytes \(first)-\(last)/\(data.count)")
        #expect(result.body.firstDifference(from: data[first...last]) == nil, "bytes \(first)-\(last)")
    }
}
