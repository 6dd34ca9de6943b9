import SluiceHTTP
import Testing

struct HTTPHeadersTests {
    @Test func namesMatchInAnyCase() {
        var headers: HTTPHeaders = ["Content-Type": "video/mp4", "X-Cache": "HIT"]
        headers.add("content-type", "text/plain")
        #expect(headers["Content-Type"] == "video/mp4")
        #expect(headers["CONTENT-TYPE"] == "video/mp4")
        #expect(headers["x-cache"] == "HIT")
        #expect(headers["X-Cach"] == nil)
        #expect(headers["X-Caches"] == nil)
        // Only A–Z fold: bytes 32 apart outside the letters are different names.
        headers.add("X-[", "bracket")
        #expect(headers["x-{"] == nil)
        #expect(headers["X-["] == "bracket")
    }

    @Test func setAndRemoveTouchEverySpelling() {
        var headers = HTTPHeaders()
        headers.add("ETag", "\"a\"")
        headers.add("Accept-Ranges", "bytes")
        headers.add("etag", "\"b\"")
        headers.set("ETAG", "\"c\"")
        #expect(Array(headers).map(\.name) == ["Accept-Ranges", "ETAG"])
        #expect(headers["etag"] == "\"c\"")
        headers.remove("accept-ranges")
        #expect(Array(headers).map(\.value) == ["\"c\""])
    }

    @Test func blockFieldsComeFirstAndCopyOnlyWhenRemoved() {
        let block = HTTPFieldBlock([("Accept-Ranges", "bytes"), ("ETag", "\"v1\""), ("X-Cache", "HIT")])
        var headers = HTTPHeaders(block: block, capacity: 2)
        headers.add("Content-Range", "bytes 0-1/2")
        headers.add("etag", "\"later\"")
        #expect(Array(headers).map(\.name) == ["Accept-Ranges", "ETag", "X-Cache", "Content-Range", "etag"])
        #expect(headers["ETAG"] == "\"v1\"", "the block's field is the first of its name")
        #expect(headers["content-range"] == "bytes 0-1/2")
        var other = HTTPHeaders(block: block)
        other.remove("x-cache")
        other.set("ETag", "\"v2\"")
        #expect(Array(other).map(\.name) == ["Accept-Ranges", "ETag"])
        #expect(other["etag"] == "\"v2\"")
        #expect(Array(headers).count == 5, "a copy's removal leaves the shared block alone")
    }

    @Test func blockLeavesOutFieldsThatCannotBeSent() {
        let block = HTTPFieldBlock([
            ("Content-Length", "5"), ("X-Split", "a\r\nInjected: yes"), ("X-Nul", "a\u{0}b"), ("Bad\nName", "v"),
            ("", "v"), ("transfer-encoding", "chunked"), ("Content-Type", "video/mp4"),
        ])
        #expect(Array(HTTPHeaders(block: block)).map(\.name) == ["Content-Type"])
    }
}
