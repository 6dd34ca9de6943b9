import SluiceHTTP
import SluiceTestSupport
import Synchronization
import Testing

extension HTTPServerTests {
    /// Echoes what the server parsed: method, path, query, body length and remote address.
    private static func echo(_ request: HTTPRequest) -> HTTPResponse {
        let text = "\(request.method)|\(request.path)|\(request.query)|\(request.body.count)|\(request.remoteAddress)"
        return HTTPResponse(status: 200, body: .bytes(Array(text.utf8)))
    }

    @Test func rawPathArrivesPercentEncoded() async throws {
        try await withServer(handler: Self.echo) { server in
            let response = try await onOwnThread {
                try RawHTTPConnection(port: server.port).get("/stream/a/%2e%2e/%2F/b%20c+d?x=%2F")
            }
            #expect(
                String(decoding: response.body, as: UTF8.self) == "GET|/stream/a/%2e%2e/%2F/b%20c+d|x=%2F|0|127.0.0.1")
        }
    }

    @Test func queryIsRawAndDecodable() async throws {
        let seen = ExchangeLog()
        try await withServer(log: seen, handler: Self.echo) { server in
            _ = try await onOwnThread {
                try RawHTTPConnection(port: server.port).get("/q?a=1&b=hello%20world&c=x+y&flag&a=2")
            }
            _ = try await onOwnThread { try RawHTTPConnection(port: server.port).get("/noquery") }
        }
        let requests = seen.all.map(\.request).sorted { $0.path < $1.path }
        #expect(requests.map(\.path) == ["/noquery", "/q"])
        #expect(requests[0].query == "")
        #expect(requests[1].query == "a=1&b=hello%20world&c=x+y&flag&a=2")
        #expect(requests[1].queryItems == ["a": "2", "b": "hello world", "c": "x y", "flag": ""])
    }

    @Test func postBodyIsReceived() async throws {
        let payload = SeededGenerator.bytes(200_000)
        try await withServer(
            handler: { request in
                HTTPResponse(status: 201, headers: ["X-Method": request.method], body: .bytes(request.body))
            },
            run: { server in
                let (fixed, chunked) = try await onOwnThread {
                    let connection = try RawHTTPConnection(port: server.port)
                    try connection.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: \(payload.count)\r\n\r\n")
                    try connection.send(payload)
                    let fixed = try connection.readResponse()
                    let chunk = Array(payload.prefix(1000))
                    try connection.send("POST /upload HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3e8\r\n")
                    try connection.send(chunk)
                    try connection.send("\r\n3e8\r\n")
                    try connection.send(chunk)
                    try connection.send("\r\n0\r\n\r\n")
                    let chunked = try connection.readResponse()
                    return (fixed, chunked)
                }
                #expect(fixed.status == 201)
                #expect(fixed.headers["X-Method"] == "POST")
                #expect(fixed.body == payload)
                #expect(chunked.status == 201)
                #expect(chunked.body == Array(payload.prefix(1000)) + Array(payload.prefix(1000)))
            })
    }

    @Test func bodyOverLimitIs413() async throws {
        let handled = ExchangeLog()
        try await withServer(
            loopbackOptions(maxBody: 1000),
            handler: { request in
                handled.record(
                    HTTPExchange(
                        request: request, status: 0, bytesSent: 0, completed: true, startedAt: .now, finishedAt: .now))
                return HTTPResponse(status: 200)
            },
            run: { server in
                let (declared, chunked, within) = try await onOwnThread {
                    let declared = try RawHTTPConnection(port: server.port)
                    try declared.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 5000\r\n\r\n")
                    let declaredResponse = try declared.readResponse()
                    let chunked = try RawHTTPConnection(port: server.port)
                    try chunked.send("POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n")
                    for _ in 0..<3 {
                        try chunked.send("320\r\n")
                        try chunked.send(SeededGenerator.bytes(800))
                        try chunked.send("\r\n")
                    }
                    try chunked.send("0\r\n\r\n")
                    let chunkedResponse = try chunked.readResponse()
                    let within = try RawHTTPConnection(port: server.port)
                    try within.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 1000\r\n\r\n")
                    try within.send(SeededGenerator.bytes(1000))
                    return (declaredResponse, chunkedResponse, try within.readResponse())
                }
                #expect(declared.status == 413)
                #expect(chunked.status == 413)
                #expect(within.status == 200)
            })
        #expect(handled.all.count == 1)
    }

    /// Header fields are bounded by ``HTTPServerOptions/connectionMemoryBytes``: 10 KiB of them (a long signed URL
    /// or a large cookie) are read whole; 40 KiB are refused with 431 without reaching the handler, and the server
    /// goes on answering.
    @Test func headerFieldsFitTheConnectionMemory() async throws {
        let handled = Mutex<[String]>([])
        try await withServer(
            handler: { request in
                handled.withLock { $0.append(request.path) }
                return HTTPResponse(status: 200, body: .bytes(Array((request.headers["X-Big"] ?? "").utf8)))
            },
            run: { server in
                let large = String(repeating: "a", count: 10 << 10)
                let (fits, refused, after) = try await onOwnThread {
                    let fits = try RawHTTPConnection(port: server.port).get("/fits", headers: ["X-Big: \(large)"])
                    let refused = try RawHTTPConnection(port: server.port).get(
                        "/refused", headers: ["X-Big: " + String(repeating: "b", count: 40 << 10)])
                    return (fits, refused, try RawHTTPConnection(port: server.port).get("/after"))
                }
                #expect(fits.status == 200)
                #expect(fits.body == Array(large.utf8))
                #expect(refused.status == 431)
                #expect(after.status == 200)
            })
        #expect(handled.withLock { $0 } == ["/fits", "/after"])
    }

    @Test func keepAliveServesTwoRequestsOnOneConnection() async throws {
        let log = ExchangeLog()
        try await withServer(
            log: log,
            handler: { request in
                try? await Task.sleep(for: .milliseconds(5))
                return HTTPResponse(status: 200, body: .bytes(Array(request.path.utf8)))
            },
            run: { server in
                let responses = try await onOwnThread {
                    let connection = try RawHTTPConnection(port: server.port)
                    return [try connection.get("/first"), try connection.get("/second")]
                }
                #expect(responses.map(\.status) == [200, 200])
                #expect(responses.map { String(decoding: $0.body, as: UTF8.self) } == ["/first", "/second"])
                #expect(responses.allSatisfy { $0.headers["Connection"] == nil })
            })
        #expect(log.all.map(\.completed) == [true, true])
        #expect(log.all.map(\.bytesSent) == [6, 7])
    }
}
