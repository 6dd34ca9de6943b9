import Foundation
import SluiceCore
import Testing

@testable import SluiceUpstream

/// Table-driven checks of how a GET response head is accepted or refused.
@Suite struct FetchValidationTests {
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var requested: ByteRange?
        var ifRange: String?
        var status: Int
        var fields: [String: String]
        var expected: Result<ByteRange?, UpstreamError>
        var testDescription: String { name }
    }

    static let r = ByteRange(first: 100, last: 199)

    static let cases: [Case] = [
        Case(
            name: "206 matching", requested: r, status: 206,
            fields: ["Content-Range": "bytes 100-199/1000", "Content-Length": "100"], expected: .success(r)),
        Case(
            name: "206 clamped at end", requested: ByteRange(first: 900, last: 1999), status: 206,
            fields: ["Content-Range": "bytes 900-999/1000"], expected: .success(ByteRange(first: 900, last: 999))),
        Case(
            name: "206 other start", requested: r, status: 206, fields: ["Content-Range": "bytes 0-99/1000"],
            expected: .failure(.protocolViolation("Content-Range 0-99 does not answer 100-199"))),
        Case(
            name: "206 short end", requested: r, status: 206, fields: ["Content-Range": "bytes 100-150/1000"],
            expected: .failure(.protocolViolation("Content-Range 100-150 does not answer 100-199"))),
        Case(
            name: "206 unknown total", requested: r, status: 206, fields: ["Content-Range": "bytes 100-199/*"],
            expected: .failure(.protocolViolation("206 without a usable Content-Range"))),
        Case(
            name: "206 without Content-Range", requested: r, status: 206, fields: [:],
            expected: .failure(.protocolViolation("206 without a usable Content-Range"))),
        Case(
            name: "206 inconsistent total", requested: r, status: 206, fields: ["Content-Range": "bytes 100-199/150"],
            expected: .failure(.protocolViolation("206 without a usable Content-Range"))),
        Case(
            name: "206 length disagrees", requested: r, status: 206,
            fields: ["Content-Range": "bytes 100-199/1000", "Content-Length": "99"],
            expected: .failure(.protocolViolation("Content-Length 99 disagrees with Content-Range 100-199"))),
        Case(
            name: "206 unasked", requested: nil, status: 206, fields: ["Content-Range": "bytes 0-9/10"],
            expected: .failure(.protocolViolation("206 to a request without Range"))),
        Case(
            name: "200 range ignored", requested: r, status: 200, fields: ["Content-Length": "1000"],
            expected: .success(ByteRange(first: 0, last: 999))),
        Case(
            name: "200 whole", requested: nil, status: 200, fields: ["Content-Length": "10"],
            expected: .success(ByteRange(first: 0, last: 9))),
        Case(name: "200 empty", requested: nil, status: 200, fields: ["Content-Length": "0"], expected: .success(nil)),
        Case(
            name: "200 without length", requested: nil, status: 200, fields: [:],
            expected: .failure(.protocolViolation("200 without Content-Length"))),
        Case(
            name: "200 If-Range same tag", requested: r, ifRange: "\"a\"", status: 200,
            fields: ["Content-Length": "1000", "ETag": "\"a\""], expected: .success(ByteRange(first: 0, last: 999))),
        Case(
            name: "200 If-Range new tag", requested: r, ifRange: "\"a\"", status: 200,
            fields: ["Content-Length": "1000", "ETag": "\"b\""], expected: .failure(.changed)),
        Case(
            name: "200 If-Range date holds", requested: r, ifRange: "Mon, 01 Jan 2024 00:00:00 GMT", status: 200,
            fields: ["Content-Length": "1000", "Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"],
            expected: .success(ByteRange(first: 0, last: 999))),
        Case(
            name: "200 If-Range date moved", requested: r, ifRange: "lm:1704067200:1000", status: 200,
            fields: ["Content-Length": "1000", "Last-Modified": "Tue, 02 Jan 2024 00:00:00 GMT"],
            expected: .failure(.changed)),
        Case(
            name: "416 with length", requested: r, status: 416, fields: ["Content-Range": "bytes */50"],
            expected: .failure(.rangeNotSatisfiable(length: 50))),
        Case(
            name: "416 bare", requested: r, status: 416, fields: [:],
            expected: .failure(.rangeNotSatisfiable(length: nil))),
        Case(name: "401", requested: r, status: 401, fields: [:], expected: .failure(.unauthorized(status: 401))),
        Case(name: "403", requested: r, status: 403, fields: [:], expected: .failure(.unauthorized(status: 403))),
        Case(name: "404", requested: r, status: 404, fields: [:], expected: .failure(.notFound)),
        Case(name: "410", requested: r, status: 410, fields: [:], expected: .failure(.notFound)),
        Case(name: "412", requested: r, status: 412, fields: [:], expected: .failure(.changed)),
        Case(name: "302 not followed", requested: r, status: 302, fields: [:], expected: .failure(.badStatus(302))),
        Case(
            name: "503", requested: r, status: 503, fields: [:], expected: .failure(.busy(status: 503, retryAfter: nil))
        ),
        Case(
            name: "429 with Retry-After", requested: r, status: 429, fields: ["Retry-After": "2"],
            expected: .failure(.busy(status: 429, retryAfter: .seconds(2)))),
    ]

    @Test(arguments: cases)
    func validates(_ item: Case) {
        let head = CurlResponseHead(
            status: item.status, fields: item.fields.map { (name: $0.key.lowercased(), value: $0.value) })
        let validation = FetchValidation(
            requested: item.requested, ifRange: item.ifRange.flatMap(IfRangeCondition.init))
        switch (validation.start(for: head), item.expected) {
        case (.success(let start), .success(let delivered)):
            #expect(start.delivered == delivered)
        case (.failure(let error), .failure(let expected)):
            #expect(error == expected)
        case (let got, let expected):
            Issue.record("got \(got), expected \(expected)")
        }
    }

    @Test func startCarriesTheObjectsInfo() throws {
        let head = CurlResponseHead(
            status: 206,
            fields: [
                ("content-range", "bytes 0-9/4096"), ("content-type", "audio/flac"), ("etag", "\"x1\""),
                ("last-modified", "Sun, 06 Nov 1994 08:49:37 GMT"),
            ])
        let start = try FetchValidation(requested: ByteRange(first: 0, last: 9), ifRange: nil).start(for: head).get()
        #expect(
            start.info
                == ContentInfo(
                    length: 4096, contentType: "audio/flac", etag: "\"x1\"",
                    lastModified: Date(timeIntervalSince1970: 784_111_777)))
    }

    @Test(arguments: [
        ("\"abc\"", IfRangeCondition.etag(EntityTag(opaque: "abc"))),
        ("W/\"abc\"", nil),
        ("lm:784111777:10", .date(Date(timeIntervalSince1970: 784_111_777))),
        ("Sun, 06 Nov 1994 08:49:37 GMT", .date(Date(timeIntervalSince1970: 784_111_777))),
        ("garbage", nil),
    ])
    func ifRangeConditions(_ text: String, _ expected: IfRangeCondition?) {
        #expect(IfRangeCondition(text) == expected)
    }

    @Test func ifRangeHeaderValues() {
        #expect(IfRangeCondition("lm:784111777:10")?.headerValue == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(IfRangeCondition("\"abc\"")?.headerValue == "\"abc\"")
    }
}
