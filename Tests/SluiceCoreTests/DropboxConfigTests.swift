import SluiceCore
import Testing

struct DropboxConfigTests {
    let fixture: ConfigFixture

    init() throws { fixture = try ConfigFixture() }

    static let auth = #""auth": {"type": "oauth2", "clientIdEnv": "P", "tokenFile": "t.json"}"#

    @Test func readsTheDriveKeysAndTheLinkOrigin() throws {
        let json = #"""
            {"upstreams": {"d": {"kind": "dropbox", \#(Self.auth), "apiBaseURL": "http://127.0.0.1:9/2",
              "contentBaseURL": "http://127.0.0.1:9/2/", "linkOrigin": "http://127.0.0.1:10",
              "maxConcurrentRequests": 4}}}
            """#
        let config = try fixture.parse(json, environment: ["P": "app-key"])
        guard case .dropbox(let dropbox)? = config.upstreams["d"]?.source else {
            Issue.record("not a dropbox upstream")
            return
        }
        #expect(dropbox.drive.apiBaseURL == "http://127.0.0.1:9/2/")
        #expect(dropbox.drive.contentBaseURL == "http://127.0.0.1:9/2/")
        #expect(dropbox.linkOrigin == "http://127.0.0.1:10/")
        #expect(dropbox.drive.oauth.clientID.value == "app-key" && dropbox.drive.oauth.clientSecret == nil)
        #expect(dropbox.drive.requests.maxConcurrentRequests == 4)
        #expect(config.upstreams["d"]?.source.authType == "oauth2")
    }

    @Test(arguments: [
        (#"{"upstreams": {"d": {"kind": "dropbox", \#(auth)}}}"#, []),
        (
            #"{"upstreams": {"d": {"kind": "dropbox"}}}"#,
            [#"upstreams.d.auth: missing required key: this kind signs in with {"type": "oauth2", …}"#]
        ),
        (
            #"{"upstreams": {"d": {"kind": "dropbox", \#(auth), "linkOrigin": "ftp://x", "root": "/"}}}"#,
            ["upstreams.d.root: unknown key", "upstreams.d.linkOrigin: expected an absolute http:// or https:// URL"]
        ),
    ])
    func reportsExactly(json: String, expected: [String]) {
        #expect(fixture.errors(json, environment: ["P": "app-key"]) == expected)
    }
}
