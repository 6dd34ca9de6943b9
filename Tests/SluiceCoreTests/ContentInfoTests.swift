import Foundation
import SluiceCore
import Testing

struct ContentInfoTests {
    @Test func strongAndWeakValidators() {
        let modified = Date(timeIntervalSince1970: 1_700_000_000)
        let strong = ContentInfo(length: 1, etag: "\"abc\"", lastModified: modified)
        #expect(strong.strongETag == "\"abc\"")
        #expect(strong.validator == "\"abc\"")
        let weak = ContentInfo(length: 5, etag: "W/\"abc\"", lastModified: modified)
        #expect(weak.strongETag == nil)
        #expect(weak.validator == "lm:1700000000:5")
        #expect(ContentInfo(length: 5, etag: "W/\"abc\"").validator == nil)
        #expect(ContentInfo(length: 5).strongETag == nil)
    }
}
