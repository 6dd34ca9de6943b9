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
}
