import SluiceHTTP
import SluiceTestSupport
import Testing

extension HTTPServerTests {
    /// A response starting from a shared field block sends the block's fields, then its own, on every request;
    /// one that removed a block field sends the rest.
    @Test func fieldBlockReachesTheClient() async throws {
        let block = HTTPFieldBlock([("Accept-Ranges", "bytes"), ("X-Split", "a\r\nInjected: yes"), ("ETag", "\"v1\"")])
        let handler: @Sendable (HTTPRequest) async -> HTTPResponse = { request in
            var headers = HTTPHeaders(block: block, capacity: 1)
            headers.add("X-Path", request.path)
            if request.path == "/plain" { headers.remove("ETag") }
            return HTTPResponse(status: 200, headers: headers, body: .bytes([1, 2, 3]))
        }
        try await withServer(handler: handler) { server in
            let (first, second, plain) = try await onOwnThread {
                let connection = try RawHTTPConnection(port: server.port)
                return (try connection.get("/a"), try connection.get("/b"), try connection.get("/plain"))
            }
            for (response, path) in [(first, "/a"), (second, "/b")] {
                let lines = response.headerLines.filter { !$0.hasPrefix("Date:") && !$0.hasPrefix("Content-Length:") }
                #expect(lines == ["Accept-Ranges: bytes", "ETag: \"v1\"", "X-Path: \(path)"])
                #expect(response.body == [1, 2, 3])
            }
            #expect(plain.headers["Accept-Ranges"] == "bytes")
            #expect(plain.headers["ETag"] == nil)
            #expect(plain.headers["Injected"] == nil)
        }
    }
}
