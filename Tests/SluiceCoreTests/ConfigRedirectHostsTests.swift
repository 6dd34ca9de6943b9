import SluiceCore
import Testing

/// `upstreams.NAME.redirectHosts`: origins only, http(s), no credentials; refused for directory upstreams.
struct ConfigRedirectHostsTests {
    let fixture: ConfigFixture

    init() throws { fixture = try ConfigFixture() }

    private static func http(_ hosts: String) -> String {
        #"{"upstreams": {"h": {"kind": "http", "baseURL": "https://x/", "redirectHosts": \#(hosts)}}}"#
    }

    @Test(arguments: [
        (
            http(#""https://cdn.example.com""#),
            [#"upstreams.h.redirectHosts: expected a list of origins like "https://cdn.example.com""#]
        ),
        (http("[5]"), ["upstreams.h.redirectHosts[0]: expected a string"]),
        (http(#"[{"env": "X"}]"#), ["upstreams.h.redirectHosts[0]: expected a string"]),
        (
            http(#"["ftp://cdn.example.com"]"#),
            [#"upstreams.h.redirectHosts[0]: expected an http:// or https:// origin like "https://cdn.example.com""#]
        ),
        (
            http(#"["https://ok.example", "cdn.example.com"]"#),
            [#"upstreams.h.redirectHosts[1]: expected an http:// or https:// origin like "https://cdn.example.com""#]
        ),
        (
            http(#"["https://cdn.example.com/videos"]"#),
            [
                "upstreams.h.redirectHosts[0]: must be an origin only (scheme, host, port), without a path, query or fragment"
            ]
        ),
        (
            http(#"["https://cdn.example.com?sig=1"]"#),
            [
                "upstreams.h.redirectHosts[0]: must be an origin only (scheme, host, port), without a path, query or fragment"
            ]
        ),
        (
            http(#"["https://user:pw@cdn.example.com"]"#),
            ["upstreams.h.redirectHosts[0]: must not hold credentials: a redirect never carries any"]
        ),
        (
            http(#"["https://@cdn.example.com"]"#),
            ["upstreams.h.redirectHosts[0]: must not hold credentials: a redirect never carries any"]
        ),
        (
            #"{"upstreams": {"l": {"kind": "directory", "root": "media", "redirectHosts": []}}}"#,
            ["upstreams.l.redirectHosts: a directory upstream takes no redirectHosts"]
        ),
    ])
    func reportsExactly(json: String, expected: [String]) {
        #expect(fixture.errors(json) == expected)
    }

    @Test func readsOriginsAsWritten() throws {
        let config = try fixture.parse(
            Self.http(#"["https://cdn.example.com", "http://10.0.0.5:8080/", "http://[::1]:9000"]"#))
        #expect(
            config.upstreams["h"]?.server?.redirectHosts == [
                "https://cdn.example.com", "http://10.0.0.5:8080", "http://[::1]:9000",
            ])
        #expect(
            try fixture.parse(#"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://x/"}}}"#)
                .upstreams["h"]?.server?.redirectHosts == [])
    }
}
