import SluiceCore
import Testing

struct BoxConfigTests {
    let fixture: ConfigFixture

    init() throws { fixture = try ConfigFixture() }

    static let auth = #""auth": {"type": "oauth2", "clientIdEnv": "I", "clientSecretEnv": "S", "tokenFile": "t.json"}"#

    @Test func readsTheDriveKeysTheRootFolderAndTheLinkLifetime() throws {
        let json = #"""
            {"upstreams": {"b": {"kind": "box", \#(Self.auth), "apiBaseURL": "http://127.0.0.1:9/2.0",
              "contentBaseURL": "http://127.0.0.1:10", "rootFolderId": "123456", "linkLifetime": "5m",
              "delivery": "redirect"}}}
            """#
        let config = try fixture.parse(json, environment: ["I": "client", "S": "secret"])
        guard case .box(let box)? = config.upstreams["b"]?.source else {
            Issue.record("not a box upstream")
            return
        }
        #expect(box.drive.apiBaseURL == "http://127.0.0.1:9/2.0/" && box.drive.contentBaseURL == "http://127.0.0.1:10/")
        #expect(box.drive.oauth.clientID.value == "client" && box.drive.oauth.clientSecret?.value == "secret")
        #expect(box.rootFolderID == "123456" && box.linkLifetime == .seconds(300))
        #expect(config.upstreams["b"]?.delivery == .redirect(status: 307))
        #expect(config.upstreams["b"]?.source.authType == "oauth2")
        let defaults = try fixture.parse(
            #"{"upstreams": {"b": {"kind": "box", \#(Self.auth)}}}"#, environment: ["I": "client", "S": "secret"])
        guard case .box(let plain)? = defaults.upstreams["b"]?.source else {
            Issue.record("not a box upstream")
            return
        }
        #expect(plain.rootFolderID == "0" && plain.linkLifetime == .seconds(600) && plain.drive.apiBaseURL == nil)
    }

    @Test(arguments: [
        (
            #"{"upstreams": {"b": {"kind": "box"}}}"#,
            [#"upstreams.b.auth: missing required key: this kind signs in with {"type": "oauth2", …}"#]
        ),
        (
            #"{"upstreams": {"b": {"kind": "box", \#(auth), "rootFolderId": "Music", "linkLifetime": "10s"}}}"#,
            [
                #"upstreams.b.rootFolderId: expected a Box folder ID: digits, "0" for the whole account"#,
                "upstreams.b.linkLifetime: expected 20s to 15m: Box's download URLs last about 15 minutes",
            ]
        ),
        (
            #"{"upstreams": {"b": {"kind": "box", \#(auth), "linkOrigin": "http://x", "linkLifetime": "1h"}}}"#,
            [
                "upstreams.b.linkOrigin: unknown key",
                "upstreams.b.linkLifetime: expected 20s to 15m: Box's download URLs last about 15 minutes",
            ]
        ),
    ])
    func reportsExactly(json: String, expected: [String]) {
        #expect(fixture.errors(json, environment: ["I": "client", "S": "secret"]) == expected)
    }
}
