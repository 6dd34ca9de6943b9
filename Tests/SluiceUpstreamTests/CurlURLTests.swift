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

    /// libcurl's parser spells every IPv4 numeric form of an address one way, which is what lets an allow-list of
    /// origins hold: `2130706433` is not a host name that slips past `127.0.0.1`.
    @Test(arguments: [
        "http://2130706433:81/", "http://0x7f000001:81/", "http://0177.0.0.1:81/", "http://127.1:81/",
        "http://0x7F.0.0.1:81/x", "HTTP://127.0.0.1:081/",
    ])
    func numericIPv4SpellingsAreOneOrigin(_ url: String) {
        #expect(CurlURL.origin(url) == URLOrigin(scheme: "http", host: "127.0.0.1", port: 81))
    }

    @Test func hostsCompareByASCIICaseAndPortsByNumberWithDefaults() {
        #expect(
            CurlURL.origin("HTTPS://CDN.Example.COM/x")
                == URLOrigin(scheme: "https", host: "cdn.example.com", port: 443))
        #expect(
            CurlURL.origin("http://[::FFFF:127.0.0.1]:80/")
                == URLOrigin(scheme: "http", host: "[::ffff:127.0.0.1]", port: 80))
        #expect(CurlURL.origin("http://[::ffff:127.0.0.1]/") != CurlURL.origin("http://127.0.0.1/"))
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
