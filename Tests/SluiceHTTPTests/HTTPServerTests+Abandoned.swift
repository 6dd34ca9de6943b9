import Foundation
import SluiceHTTP
import SluiceTestSupport
import Testing

/// Clients that leave in the middle of a request head, or never finish it, must not keep their slots: behind a
/// balancer every client shares one address and its per-address limit.
extension HTTPServerTests {
    private static let partialHead = Array("GET /partial HTTP/1.1\r\nHost: t\r\nRange: bytes=0-".utf8)

    private static func ok(_ request: HTTPRequest) -> HTTPResponse {
        HTTPResponse(status: 200, body: .bytes(Array("ok".utf8)))
    }

    @Test func closedPartialHeadsFreeTheirSlots() async throws {
        var options = loopbackOptions(perIP: 256)
        options.idleTimeout = .seconds(60)
        try await withServer(options, handler: Self.ok) { server in
            try await onOwnThread {
                for _ in 0..<300 {
                    let descriptor = try RawHTTP.connect(port: server.port)
                    try RawHTTP.send(Self.partialHead, to: descriptor)
                    close(descriptor)
                }
            }
            // Connections still in the listen backlog are not counted yet: the request is retried until they are
            // accepted and released (one sweep after their accept; the bound is slack for a loaded machine, and
            // still a quarter of the idle timeout that held them before).
            let response = await Poll.value(within: .seconds(15)) {
                try? await onOwnThread { try RawHTTPConnection(port: server.port).get("/after") }
            }
            #expect(response?.status == 200)
            let released = await Poll.until(within: .seconds(15)) { SocketCensus.sockets(onPort: server.port) <= 1 }
            #expect(released, "\(SocketCensus.sockets(onPort: server.port)) sockets still open on the port")
        }
    }

    /// 100 clients drip their heads a byte at a time, each byte resetting libmicrohttpd's inactivity timeout:
    /// each is closed once its head is a second old, and a plain request meanwhile is answered.
    @Test func drippedHeadsAreClosedAtTheHeadDeadline() async throws {
        var options = loopbackOptions(perIP: 256)
        options.headerTimeout = .seconds(1)
        try await withServer(options, handler: Self.ok) { server in
            async let lifetimes = onOwnThread { try RawHTTP.drip(connections: 100, port: server.port) }
            try await Task.sleep(for: .milliseconds(300))
            let response = try await onOwnThread { try RawHTTPConnection(port: server.port).get("/meanwhile") }
            #expect(response.status == 200)
            let closedAfter = try await lifetimes
            #expect(closedAfter.count == 100)
            // The sweeper runs every 200 ms; the rest is slack for a loaded machine (the idle timeout is 30 s).
            #expect(closedAfter.allSatisfy { $0 >= .milliseconds(900) && $0 <= .seconds(8) }, "\(closedAfter)")
        }
    }

    /// The head deadline starts with a head: a kept-alive connection idle for longer is still served.
    @Test func idleKeptAliveConnectionOutlivesTheHeadDeadline() async throws {
        var options = loopbackOptions()
        options.headerTimeout = .seconds(1)
        try await withServer(options, handler: Self.ok) { server in
            let connection = try await onOwnThread { try RawHTTPConnection(port: server.port) }
            #expect(try await onOwnThread { try connection.get("/first") }.status == 200)
            try await Task.sleep(for: .seconds(2))
            #expect(try await onOwnThread { try connection.get("/second") }.status == 200)
        }
    }
}
