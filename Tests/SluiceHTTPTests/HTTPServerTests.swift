import Foundation
import SluiceHTTP
import SluiceTestSupport
import Testing

/// Live-server tests on 127.0.0.1 with free ports. Serialized: the descriptor-leak checks count this process's
/// sockets on a server's port, and one suite at a time keeps the 2-core machine's timing predictable.
@Suite(.serialized)
struct HTTPServerTests {
    @Test func bytesBodyWithHeaders() async throws {
        let log = ExchangeLog()
        try await withServer(
            log: log,
            handler: { _ in
                HTTPResponse(
                    status: 200, headers: ["Content-Type": "text/plain", "X-Test": "yes"],
                    body: .bytes(Array("hello".utf8)))
            },
            run: { server in
                let response = try await onOwnThread { try RawHTTPConnection(port: server.port).get("/hello") }
                #expect(response.status == 200)
                #expect(response.body == Array("hello".utf8))
                #expect(response.headers["Content-Length"] == "5")
                #expect(response.headers["Content-Type"] == "text/plain")
                #expect(response.headers["X-Test"] == "yes")
                #expect(response.headerLines.filter { $0.lowercased().hasPrefix("date:") }.count == 1)
                #expect(response.headers["Connection"] == nil)
            })
        #expect(log.all.map(\.responseHeaders["X-Test"]) == ["yes"])
        #expect(log.all.map(\.status) == [200])
        #expect(log.all.map(\.bytesSent) == [5])
    }

    /// Fields a handler adds that cannot be sent as they are never reach the client and never inject a line: CR or
    /// LF in a name or value, a NUL (which would cut the C string short), an empty name, a framing field. The
    /// fields around them are sent.
    @Test func headerValuesWithLineBreaksAreDropped() async throws {
        try await withServer(
            handler: { _ in
                var headers = HTTPHeaders()
                headers.add("X-Good", "fine")
                headers.add("X-Evil", "a\r\nSet-Cookie: injected=1")
                headers.add("X-Lf", "a\nSet-Cookie: injected=2")
                headers.add("X-Bad\nName", "v")
                headers.add("X-Nul", "a\u{0}b")
                headers.add("X-Nul-\u{0}Name", "v")
                headers.add("", "empty name")
                headers.add("Content-Length", "999")
                headers.add("transfer-encoding", "chunked")
                headers.add("X-Also-Good", "2")
                return HTTPResponse(status: 200, headers: headers, body: .bytes([1, 2, 3]))
            },
            run: { server in
                let response = try await onOwnThread { try RawHTTPConnection(port: server.port).get("/") }
                let lines = response.headerLines.filter { !$0.hasPrefix("Date:") && !$0.hasPrefix("Content-Length:") }
                #expect(lines == ["X-Good: fine", "X-Also-Good: 2"])
                #expect(response.headers["Content-Length"] == "3")
                #expect(response.body == [1, 2, 3])
            })
    }

    @Test func headAnswerCarriesLengthWithoutBodyAndKeepsConnection() async throws {
        try await withServer(
            handler: { request in
                request.method == "HEAD"
                    ? HTTPResponse(status: 200, body: .head(length: 123_456))
                    : HTTPResponse(status: 200, body: .bytes(Array("after".utf8)))
            },
            run: { server in
                let (head, get) = try await onOwnThread {
                    let connection = try RawHTTPConnection(port: server.port)
                    let head = try connection.get("/a", method: "HEAD")
                    let get = try connection.get("/b")
                    return (head, get)
                }
                #expect(head.status == 200)
                #expect(head.headers["Content-Length"] == "123456")
                #expect(get.status == 200)
                #expect(get.body == Array("after".utf8))
            })
    }

    @Test func streamAnswersHeadWithoutReadingTheSource() async throws {
        let source = ScriptedSource(data: SeededGenerator.bytes(1000), mode: .immediate)
        let log = ExchangeLog()
        try await withStreamServer(
            source, log: log,
            run: { server in
                let response = try await onOwnThread {
                    try RawHTTPConnection(port: server.port).get("/", method: "HEAD")
                }
                #expect(response.headers["Content-Length"] == "1000")
                #expect(await Poll.until(within: .seconds(30)) { source.closes == [true] })
            })
        #expect(log.all.map(\.bytesSent) == [0])
    }

    @Test func startFailures() async throws {
        #expect(throws: HTTPServerError.invalidAddress("not-an-ip")) {
            try HTTPServer(
                options: HTTPServerOptions(host: "not-an-ip", port: 0), handler: { _ in HTTPResponse(status: 200) }
            ).start()
        }
        #expect(throws: HTTPServerError.invalidPort(70000)) {
            try HTTPServer(
                options: HTTPServerOptions(host: "127.0.0.1", port: 70000), handler: { _ in HTTPResponse(status: 200) }
            ).start()
        }
        let ok: @Sendable (HTTPRequest) async -> HTTPResponse = { _ in HTTPResponse(status: 200) }
        try await withServer(handler: ok) { first in
            let second = HTTPServer(
                options: HTTPServerOptions(host: "127.0.0.1", port: first.port),
                handler: { _ in HTTPResponse(status: 200) })
            #expect(throws: HTTPServerError.bindFailed(host: "127.0.0.1", port: first.port, errno: EADDRINUSE)) {
                try second.start()
            }
            #expect(throws: HTTPServerError.alreadyStarted) { try first.start() }
            await second.shutdown(grace: .zero)
        }
    }

    @Test func servesIPv6Loopback() async throws {
        var options = loopbackOptions()
        options.host = "::1"
        try await withServer(
            options,
            handler: { request in
                HTTPResponse(status: 200, body: .bytes(Array(request.remoteAddress.utf8)))
            },
            run: { server in
                let response = try await onOwnThread {
                    try RawHTTPConnection(port: server.port, ipv6: true).get("/")
                }
                #expect(response.status == 200)
                #expect(String(decoding: response.body, as: UTF8.self) == "::1")
            })
    }

    @Test func shutdownOfUnstartedServerAndTwiceIsSafe() async throws {
        let idle = HTTPServer(options: loopbackOptions(), handler: { _ in HTTPResponse(status: 200) })
        await idle.shutdown(grace: .zero)
        let server = HTTPServer(options: loopbackOptions(), handler: { _ in HTTPResponse(status: 200) })
        try server.start()
        #expect(server.port > 0)
        async let first: Void = server.shutdown(grace: .seconds(1))
        async let second: Void = server.shutdown(grace: .seconds(1))
        _ = await (first, second)
        await server.shutdown(grace: .zero)
    }
}
