import SluiceHTTP
import SluiceTestSupport
import Synchronization
import Testing

extension HTTPServerTests {
    /// The immediate handler reads the request's method, path (without the query) and header fields (by any
    /// spelling, first value of a repeated one) on demand; the exchange carries the header fields only when
    /// ``HTTPServerOptions/exchangeHeaderFields`` names them, and a request the immediate handler declines
    /// reaches `handler` with all of them.
    @Test(arguments: [["X-Probe", "X-Absent"], []])
    func immediateHandlerReadsTheHead(exchangeHeaderFields: [String]) async throws {
        var options = loopbackOptions()
        options.exchangeHeaderFields = exchangeHeaderFields
        let log = ExchangeLog()
        let server = HTTPServer(
            options: options,
            handler: { request in
                HTTPResponse(status: 202, body: .bytes(Array((request.headers["X-Probe"] ?? "none").utf8)))
            },
            immediateHandler: { head in
                guard head.path == "/now" else { return nil }
                let seen = [
                    head.method, head.path, head["x-probe"] ?? "nil", head["X-Absent"] ?? "nil",
                    "\(head.hasField(prefixed: "x-PRO"))", "\(head.hasField(prefixed: "If-"))",
                    head.withValue(of: "X-PROBE") { $0.map { String(decoding: $0, as: UTF8.self) } ?? "nil" },
                    head.withValue(of: "X-Absent") { $0 == nil ? "nil" : "found" },
                ]
                return HTTPResponse(status: 200, body: .bytes(Array(seen.joined(separator: "|").utf8)))
            }, onComplete: { log.record($0) })
        try server.start()
        let (now, later) = try await onOwnThread {
            let connection = try RawHTTPConnection(port: server.port)
            let now = try connection.get("/now?token=abc", headers: ["X-PROBE: first", "X-Probe: second"])
            let later = try connection.get("/later?x=1", headers: ["X-Probe: declined"])
            return (now, later)
        }
        await server.shutdown(grace: .seconds(2))
        #expect(now.status == 200)
        #expect(String(decoding: now.body, as: UTF8.self) == "GET|/now|first|nil|true|false|first|nil")
        #expect(later.status == 202)
        #expect(String(decoding: later.body, as: UTF8.self) == "declined")
        let exchanges = log.all.sorted { $0.request.path > $1.request.path }
        #expect(exchanges.map(\.request.path) == ["/now", "/later"])
        #expect(exchanges.map(\.request.query) == ["token=abc", "x=1"])
        #expect(exchanges.map(\.request.method) == ["GET", "GET"])
        #expect(exchanges[0].request.headers["X-Probe"] == (exchangeHeaderFields.isEmpty ? nil : "first"))
        #expect(exchanges[0].request.headers["X-Absent"] == nil)
        #expect(exchanges[1].request.headers["X-Probe"] == "declined")
    }

    /// A head made from header fields (for tests and requests already read) answers as one read from the server.
    @Test func headFromFieldsFindsFieldsInAnyCase() {
        let head = RequestHead(method: "GET", path: "/a", headers: ["If-None-Match": "\"v1\"", "Range": "bytes=0-1"])
        // #expect cannot capture a noncopyable value: the results are read first.
        let (conditional, absent) = (head["if-none-match"], head["If-Match"])
        let (hasIf, hasX) = (head.hasField(prefixed: "IF-"), head.hasField(prefixed: "X-"))
        let range = head.withValue(of: "range") { $0.map { String(decoding: $0, as: UTF8.self) } }
        let noRange = head.withValue(of: "If-Match") { $0 == nil }
        #expect(range == "bytes=0-1" && noRange)
        #expect(conditional == "\"v1\"")
        #expect(absent == nil)
        #expect(hasIf)
        #expect(!hasX)
    }
}
