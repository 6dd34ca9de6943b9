import Testing

@testable import SluiceHTTP

/// ``RequestFraming`` over field lists: which heads frame one way only.
struct RequestFramingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var fields: [(String, String)]
        var requiresHost = true
        var malformed = false
        var verdict: RequestFraming.Verdict

        var testDescription: String {
            fields.map { "\($0.0): \($0.1)" }.joined(separator: " | ") + (malformed ? " (malformed)" : "")
        }
    }

    static let cases: [Case] = [
        Case(fields: [("Host", "a")], verdict: .accept),
        Case(fields: [("HOST", "a"), ("Content-Length", "3"), ("content-length", "3")], verdict: .accept),
        Case(fields: [("Host", "a"), ("Transfer-Encoding", "CHUNKED")], verdict: .accept),
        Case(fields: [], requiresHost: false, verdict: .accept),
        Case(fields: [], verdict: .badRequest),
        Case(fields: [("Host", "a"), ("host", "b")], requiresHost: false, verdict: .badRequest),
        Case(fields: [("Host", "a"), ("Content-Length", "3"), ("Content-Length", "4")], verdict: .badRequest),
        Case(fields: [("Host", "a"), ("Content-Length", "3"), ("Transfer-Encoding", "chunked")], verdict: .badRequest),
        Case(fields: [("Host", "a"), ("Transfer-Encoding", "chunked"), ("Content-Length", "3")], verdict: .badRequest),
        Case(
            fields: [("Host", "a"), ("Transfer-Encoding", "chunked"), ("Transfer-Encoding", "chunked")],
            verdict: .badRequest),
        Case(fields: [("Host", "a"), ("Transfer-Encoding", "gzip")], verdict: .notImplemented),
        Case(fields: [("Host", "a"), ("Transfer-Encoding", "chunked, gzip")], verdict: .notImplemented),
        Case(fields: [("Host", "a"), ("Content-Length ", "3")], verdict: .badRequest),
        Case(fields: [("Host", "a"), ("X\tY", "3")], verdict: .badRequest),
        Case(fields: [("Host", "a"), ("X-Y", "a\rb")], verdict: .badRequest),
        Case(fields: [("Host", "a")], malformed: true, verdict: .badRequest),
        Case(fields: [("Host", "a"), ("X-Spaced", " a b ")], verdict: .accept),
    ]

    @Test(arguments: cases)
    func verdict(_ test: Case) {
        // The framing keeps pointers to the values it has seen, as it does into libmicrohttpd's buffer.
        let copies = test.fields.flatMap { [Self.copy($0.0), Self.copy($0.1)] }
        defer { for copy in copies { copy.deallocate() } }
        var framing = RequestFraming()
        for index in stride(from: 0, to: copies.count, by: 2) {
            framing.add(name: UnsafeRawBufferPointer(copies[index]), value: UnsafeRawBufferPointer(copies[index + 1]))
        }
        if test.malformed { framing.markMalformed() }
        #expect(framing.verdict(requiresHost: test.requiresHost) == test.verdict)
    }

    private static func copy(_ text: String) -> UnsafeMutableRawBufferPointer {
        let bytes = Array(text.utf8)
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        copy.copyBytes(from: bytes)
        return copy
    }
}
