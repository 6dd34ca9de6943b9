import Foundation
import SluiceCore
import Testing

struct PreconditionsTests {
    static let modified = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT
    static let info = ContentInfo(length: 100, etag: "\"v1\"", lastModified: modified.addingTimeInterval(0.25))
    static let weakInfo = ContentInfo(length: 100, etag: "W/\"v1\"", lastModified: modified)
    static let bareInfo = ContentInfo(length: 100)
    static let same = "Sun, 06 Nov 1994 08:49:37 GMT"
    static let earlier = "Sun, 06 Nov 1994 08:49:36 GMT"
    static let later = "Sun, 06 Nov 1994 08:49:38 GMT"

    typealias Case = (Preconditions, ContentInfo, PreconditionOutcome)

    @Test(
        arguments: [
            (Preconditions(), info, .proceed(rangeApplies: true)),
            // If-None-Match: weak comparison, `*`, lists (RFC 9110 §13.1.2).
            (Preconditions(ifNoneMatch: "\"v1\""), info, .notModified),
            (Preconditions(ifNoneMatch: "W/\"v1\""), info, .notModified),
            (Preconditions(ifNoneMatch: "\"v1\""), weakInfo, .notModified),
            (Preconditions(ifNoneMatch: "\"v0\", \"v1\""), info, .notModified),
            (Preconditions(ifNoneMatch: "\"v0\", \"v2\""), info, .proceed(rangeApplies: true)),
            (Preconditions(ifNoneMatch: "*"), info, .notModified),
            (Preconditions(ifNoneMatch: "*"), bareInfo, .notModified),
            (Preconditions(ifNoneMatch: "\"v1\""), bareInfo, .proceed(rangeApplies: true)),
            (Preconditions(ifNoneMatch: "v1"), info, .proceed(rangeApplies: true)),
            // If-Modified-Since (RFC 9110 §13.1.3), compared in whole seconds.
            (Preconditions(ifModifiedSince: same), info, .notModified),
            (Preconditions(ifModifiedSince: later), info, .notModified),
            (Preconditions(ifModifiedSince: earlier), info, .proceed(rangeApplies: true)),
            (Preconditions(ifModifiedSince: "Sunday, 06-Nov-94 08:49:37 GMT"), info, .notModified),
            (Preconditions(ifModifiedSince: "Sun Nov  6 08:49:37 1994"), info, .notModified),
            (Preconditions(ifModifiedSince: "garbage"), info, .proceed(rangeApplies: true)),
            (Preconditions(ifModifiedSince: same), bareInfo, .proceed(rangeApplies: true)),
            // If-None-Match present: If-Modified-Since is ignored.
            (Preconditions(ifNoneMatch: "\"v2\"", ifModifiedSince: later), info, .proceed(rangeApplies: true)),
            (Preconditions(ifNoneMatch: "\"v1\"", ifModifiedSince: earlier), info, .notModified),
            // If-Match: strong comparison (RFC 9110 §13.1.1), evaluated first.
            (Preconditions(ifMatch: "\"v1\""), info, .proceed(rangeApplies: true)),
            (Preconditions(ifMatch: "\"v0\", \"v1\""), info, .proceed(rangeApplies: true)),
            (Preconditions(ifMatch: "\"v2\""), info, .preconditionFailed),
            (Preconditions(ifMatch: "W/\"v1\""), info, .preconditionFailed),
            (Preconditions(ifMatch: "\"v1\""), weakInfo, .preconditionFailed),
            (Preconditions(ifMatch: "\"v1\""), bareInfo, .preconditionFailed),
            (Preconditions(ifMatch: "*"), bareInfo, .proceed(rangeApplies: true)),
            (Preconditions(ifMatch: "\"v2\"", ifNoneMatch: "\"v1\""), info, .preconditionFailed),
            // If-Unmodified-Since (RFC 9110 §13.1.4), ignored with If-Match or an invalid date.
            (Preconditions(ifUnmodifiedSince: same), info, .proceed(rangeApplies: true)),
            (Preconditions(ifUnmodifiedSince: earlier), info, .preconditionFailed),
            (Preconditions(ifUnmodifiedSince: "nonsense"), info, .proceed(rangeApplies: true)),
            (Preconditions(ifUnmodifiedSince: earlier), bareInfo, .proceed(rangeApplies: true)),
            (Preconditions(ifMatch: "\"v1\"", ifUnmodifiedSince: earlier), info, .proceed(rangeApplies: true)),
            // If-Range (RFC 9110 §13.1.5).
            (Preconditions(ifRange: "\"v1\""), info, .proceed(rangeApplies: true)),
            (Preconditions(ifRange: "\"v2\""), info, .proceed(rangeApplies: false)),
            (Preconditions(ifRange: "W/\"v1\""), info, .proceed(rangeApplies: false)),
            (Preconditions(ifRange: "\"v1\""), weakInfo, .proceed(rangeApplies: false)),
            (Preconditions(ifRange: "\"v1\""), bareInfo, .proceed(rangeApplies: false)),
            (Preconditions(ifRange: same), info, .proceed(rangeApplies: true)),
            (Preconditions(ifRange: later), info, .proceed(rangeApplies: false)),
            (Preconditions(ifRange: earlier), info, .proceed(rangeApplies: false)),
            (Preconditions(ifRange: same), bareInfo, .proceed(rangeApplies: false)),
            (Preconditions(ifRange: "garbage"), info, .proceed(rangeApplies: false)),
            (Preconditions(ifNoneMatch: "\"v0\"", ifRange: "\"v2\""), info, .proceed(rangeApplies: false)),
            (Preconditions(ifNoneMatch: "\"v1\"", ifRange: "\"v1\""), info, .notModified),
        ] as [Case])
    func evaluates(preconditions: Preconditions, info: ContentInfo, expected: PreconditionOutcome) {
        #expect(preconditions.evaluate(against: info) == expected)
    }

    @Test func readsEachFieldByItsName() {
        let fields = [
            "Host": "t", "If-Match": "a", "If-None-Match": "b", "If-Modified-Since": "c", "If-Unmodified-Since": "d",
            "If-Range": "e", "If-Other": "x", "Range": "bytes=0-1",
        ]
        #expect(
            Preconditions(field: { fields[$0] })
                == Preconditions(
                    ifMatch: "a", ifNoneMatch: "b", ifModifiedSince: "c", ifUnmodifiedSince: "d", ifRange: "e"))
        #expect(Preconditions(field: { ["Host": "t"][$0] }) == Preconditions())
    }
}
