import Testing

@testable import SluiceUpstream

/// Origin comparison used to decide where credentials may go, and media types of local files.
@Suite struct CurlURLTests {
    @Test(arguments: [
        ("http://a.example/x", "http://a.example:80/y", true),
        ("http://A.example/x", "http://a.example/y", true),
        ("http://a.example/x", "https://a.example/x", false),
        ("http://a.example/x", "http://a.example:8080/x", false),
        ("http://a.example/x", "http://b.example/x", false),
        ("http://127.0.0.1:1/x", "http://127.0.0.1:2/x", false),
        ("http://a.example/x", "not a url", false),
    ])
    func sameOrigin(_ lhs: String, _ rhs: String, _ expected: Bool) {
        #expect(CurlURL.sameOrigin(lhs, rhs) == expected)
    }

    @Test(arguments: [
        ("https://a/", "https://b/", true), ("http://a/", "https://a/", true), ("https://a/", "http://a/", false),
        ("http://a/", "ftp://a/", false), ("http://a/", "file:///etc/passwd", false),
    ])
    func redirectSchemes(_ from: String, _ to: String, _ expected: Bool) {
        #expect(CurlURL.mayRedirect(from: from, to: to) == expected)
    }

    @Test(arguments: [
        ("a.mp4", "video/mp4"), ("B.M4A", "audio/mp4"), ("x.m3u8", "application/vnd.apple.mpegurl"),
        ("seg.ts", "video/mp2t"), ("noext", "application/octet-stream"), (".hidden", "application/octet-stream"),
        ("a.unknown", "application/octet-stream"), ("song.opus", "audio/ogg"),
    ])
    func mediaTypes(_ name: String, _ expected: String) {
        #expect(MediaType.forFileName(name) == expected)
    }
}
