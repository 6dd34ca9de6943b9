import Foundation
import SluiceCore
import Testing

@testable import SluiceUpstream

struct S3ErrorCodeTests {
    static func body(_ code: String) -> [UInt8] {
        Array(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <Error><Code>\(code)</Code><Message>m</Message><Resource>/films/a</Resource><RequestId>1</RequestId></Error>
            """.utf8)
    }

    @Test(arguments: [
        ("NoSuchKey", 404, UpstreamError.notFound),
        ("AccessDenied", 403, .unauthorized(status: 403)),
        ("SignatureDoesNotMatch", 403, .unauthorized(status: 403)),
        ("InvalidAccessKeyId", 403, .unauthorized(status: 403)),
        ("ExpiredToken", 400, .unauthorized(status: 400)),
        ("RequestTimeTooSkewed", 403, .clockSkewed),
        ("SlowDown", 503, .badStatus(503)),
        ("InternalError", 500, .badStatus(500)),
        ("AuthorizationHeaderMalformed", 400, .badStatus(400)),
    ])
    func codesMapToErrors(code: String, status: Int, expected: UpstreamError) {
        let parsed = S3ErrorCode.parse(Self.body(code))
        #expect(parsed == S3ErrorCode(code))
        #expect(UpstreamError(s3Status: status, code: parsed) == expected)
    }

    @Test func bodiesThatAreNotS3ErrorsGiveNoCode() {
        #expect(S3ErrorCode.parse([]) == nil)
        #expect(S3ErrorCode.parse(Array("status 403\n".utf8)) == nil)
        #expect(S3ErrorCode.parse(Array("<Error><Code>".utf8)) == nil)
        #expect(S3ErrorCode.parse(Array("<Other><Code>NoSuchKey</Code></Other>".utf8)) == nil)
        #expect(S3ErrorCode.parse(Array("<Error><Detail><Code>X</Code></Detail></Error>".utf8)) == nil)
    }

    @Test func backoffDoublesWithJitterAndHonoursRetryAfterWithinTheCap() {
        let backoff = RetryBackoff(attempts: 3, base: .milliseconds(100), cap: .seconds(2))
        for _ in 0..<50 {
            let first = backoff.delay(after: 1, retryAfter: nil)
            let second = backoff.delay(after: 2, retryAfter: "soon")
            #expect(first >= .milliseconds(50) && first <= .milliseconds(100))
            #expect(second >= .milliseconds(100) && second <= .milliseconds(200))
        }
        #expect(backoff.delay(after: 1, retryAfter: " 1 ") == .seconds(1))
        #expect(backoff.delay(after: 1, retryAfter: "120") == .seconds(2))
        #expect(backoff.delay(after: 30, retryAfter: nil) <= .seconds(2))
    }

    @Test func retryAfterIsReadAsSecondsOrAnHTTPDate() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryBackoff.retryAfter("7", now: now) == .seconds(7))
        #expect(RetryBackoff.retryAfter(" 0 ", now: now) == .zero)
        #expect(RetryBackoff.retryAfter(HTTPDate.format(now.addingTimeInterval(30)), now: now) == .seconds(30))
        #expect(RetryBackoff.retryAfter(HTTPDate.format(now.addingTimeInterval(-30)), now: now) == .zero)
        #expect(RetryBackoff.retryAfter("99999999999", now: now) == .seconds(86_400), "at most a day")
        for malformed in [nil, "", "-1", "1.5", "soon", "9223372036854775808"] {
            #expect(RetryBackoff.retryAfter(malformed, now: now) == nil, "\(malformed ?? "nil")")
        }
    }

    @Test func busyAnswersCarryTheirRetryAfter() {
        let head = CurlResponseHead(status: 429, fields: [("retry-after", "3")])
        #expect(UpstreamError(response: head) == .busy(status: 429, retryAfter: .seconds(3)))
        #expect(
            UpstreamError(response: CurlResponseHead(status: 503, fields: [])) == .busy(status: 503, retryAfter: nil))
        #expect(UpstreamError(response: CurlResponseHead(status: 500, fields: [])) == .badStatus(500))
    }
}
