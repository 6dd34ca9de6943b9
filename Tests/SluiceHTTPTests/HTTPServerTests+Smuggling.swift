import SluiceHTTP
import SluiceTestSupport
import Testing

/// Request heads that two HTTP parsers may frame differently (a front proxy and this server): each is refused
/// with one answer, and the request written as its body is never answered as a second request.
extension HTTPServerTests {
    /// A head whose framing is ambiguous, and the status it must get.
    struct AmbiguousHead: CustomTestStringConvertible, Sendable {
        var name: String
        /// The header lines after the request line, each without its CRLF.
        var fields: [String]
        var status: Int
        var version = "HTTP/1.1"

        var testDescription: String { name }
    }

    /// What a front proxy framing the other way would take for the first request's body.
    private static let smuggled = Array("GET /admin/cache HTTP/1.1\r\nHost: t\r\n\r\n".utf8)
    private static let chunkedEnd = Array("0\r\n\r\n".utf8)
    private static let bodyLength = chunkedEnd.count + smuggled.count

    static let ambiguousHeads: [AmbiguousHead] = [
        AmbiguousHead(
            name: "differing Content-Length",
            fields: ["Host: t", "Content-Length: 0", "Content-Length: \(bodyLength)"],
            status: 400),
        AmbiguousHead(
            name: "Content-Length and Transfer-Encoding",
            fields: ["Host: t", "Content-Length: \(bodyLength)", "Transfer-Encoding: chunked"], status: 400),
        AmbiguousHead(
            name: "space before the colon", fields: ["Host: t", "Content-Length : \(bodyLength)"], status: 400),
        AmbiguousHead(
            name: "tab before the colon", fields: ["Host: t", "Content-Length\t: \(bodyLength)"], status: 400),
        AmbiguousHead(name: "obs-fold", fields: ["Host: t", "X-Pad: a", " Content-Length: 0"], status: 400),
        AmbiguousHead(name: "obs-fold on the first field", fields: ["X-Pad: a", "\tb", "Host: t"], status: 400),
        AmbiguousHead(name: "NUL in a value", fields: ["Host: t", "X-Pad: a\0b"], status: 400),
        AmbiguousHead(name: "NUL in the last value", fields: ["X-Pad: a", "Host: t\0u"], status: 400),
        AmbiguousHead(name: "bare CR in a value", fields: ["Host: t", "X-Pad: a\rb"], status: 400),
        AmbiguousHead(name: "no Host", fields: ["Content-Length: 0"], status: 400),
        AmbiguousHead(name: "two Host fields", fields: ["Host: t", "Host: u"], status: 400),
        AmbiguousHead(
            name: "two Transfer-Encoding fields",
            fields: ["Host: t", "Transfer-Encoding: chunked", "Transfer-Encoding: x"],
            status: 400),
        AmbiguousHead(name: "unknown Transfer-Encoding", fields: ["Host: t", "Transfer-Encoding: gzip"], status: 501),
        AmbiguousHead(
            name: "Transfer-Encoding list", fields: ["Host: t", "Transfer-Encoding: gzip, chunked"], status: 501),
    ]

    @Test(arguments: ambiguousHeads)
    func ambiguousHeadIsRefusedAndItsBodyNotAnswered(_ head: AmbiguousHead) async throws {
        let log = ExchangeLog()
        try await withServer(
            log: log,
            handler: { request in
                HTTPResponse(status: request.path == "/admin/cache" ? 401 : 200, body: .bytes(Array("ok".utf8)))
            },
            run: { server in
                let request =
                    Array("POST /upload \(head.version)\r\n\(head.fields.map { $0 + "\r\n" }.joined())\r\n".utf8)
                    + Self.chunkedEnd + Self.smuggled
                let (closed, received) = try await onOwnThread {
                    let connection = try RawHTTPConnection(port: server.port)
                    connection.setReceiveTimeout(milliseconds: 10_000)
                    try connection.send(request)
                    return (connection.waitForClose(), String(decoding: connection.pending, as: UTF8.self))
                }
                #expect(closed, "the connection stays open after the refusal")
                // libmicrohttpd's own refusals carry a page with no Content-Length: count status lines instead.
                let statusLines = received.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.") }
                #expect(statusLines.count == 1, "\(received)")
                #expect(statusLines.first?.hasPrefix("HTTP/1.1 \(head.status) ") == true, "\(received)")
            })
        #expect(!log.all.contains { $0.request.path == "/admin/cache" })
    }

    /// The forms that frame one way only are still served, on one kept-alive connection.
    @Test func plainFramingIsStillServed() async throws {
        try await withServer(
            handler: { request in HTTPResponse(status: 200, body: .bytes(Array("\(request.body.count)".utf8))) },
            run: { server in
                let bodies = try await onOwnThread {
                    let connection = try RawHTTPConnection(port: server.port)
                    var bodies: [String] = []
                    for head in [
                        "Host: t\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nabc",
                        "Host: t\r\nTransfer-Encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
                        "Host: t\r\nX-Empty:\r\nX-Spaced:   a b  \r\nContent-Length: 1\r\n\r\nz",
                        "host: t\nContent-Length: 2\n\nxy",
                    ] {
                        try connection.send("POST /p HTTP/1.1\r\n" + head)
                        bodies.append(String(decoding: try connection.readResponse().body, as: UTF8.self))
                    }
                    try connection.send("GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
                    bodies.append(String(decoding: try connection.readResponse().body, as: UTF8.self))
                    return bodies
                }
                #expect(bodies == ["3", "3", "1", "2", "0"])
            })
    }
}
