import SluiceCore
import Testing

struct YandexDiskConfigTests {
    let fixture: ConfigFixture

    init() throws { fixture = try ConfigFixture() }

    static let auth = #""auth": {"type": "oauth2", "clientIdEnv": "P", "tokenFile": "t.json"}"#

    func disk(_ json: String) throws -> YandexDiskConfig? {
        let config = try fixture.parse(json, environment: ["P": "app-id"])
        guard case .yandexDisk(let disk)? = config.upstreams["y"]?.source else { return nil }
        return disk
    }

    @Test func readsTheDriveKeysAndTheRoot() throws {
        let json = #"""
            {"upstreams": {"y": {"kind": "yandex-disk", \#(Self.auth), "apiBaseURL": "http://127.0.0.1:9/v1/disk",
              "contentBaseURL": "http://127.0.0.1:10", "root": "disk:/Media/Films/", "delivery": "redirect"}}}
            """#
        let disk = try #require(try disk(json))
        #expect(disk.drive.apiBaseURL == "http://127.0.0.1:9/v1/disk/")
        #expect(disk.drive.contentBaseURL == "http://127.0.0.1:10/")
        #expect(disk.root == "disk:/Media/Films/")
        #expect(disk.drive.oauth.clientID.value == "app-id")
        #expect(disk.linkLifetime == .seconds(300))
    }

    @Test(arguments: [(nil, "disk:/"), ("disk:/", "disk:/"), ("app:/", "app:/"), ("app:/Backups//", "app:/Backups/")])
    func theRootDefaultsToTheWholeDisk(root: String?, expected: String) throws {
        let key = root.map { #", "root": "\#($0)""# } ?? ""
        let disk = try disk(#"{"upstreams": {"y": {"kind": "yandex-disk", \#(Self.auth)\#(key)}}}"#)
        #expect(disk?.root == expected)
    }

    @Test(arguments: [
        (
            #"{"upstreams": {"y": {"kind": "yandex-disk"}}}"#,
            [#"upstreams.y.auth: missing required key: this kind signs in with {"type": "oauth2", …}"#]
        ),
        (
            #"{"upstreams": {"y": {"kind": "yandex-disk", \#(auth), "root": "/Music"}}}"#,
            ["upstreams.y.root: expected disk:/ or app:/, optionally followed by a folder"]
        ),
        (
            #"{"upstreams": {"y": {"kind": "yandex-disk", \#(auth), "root": "disk:/a/../b"}}}"#,
            ["upstreams.y.root: the folder after disk:/ must be a plain path (no empty, . or .. segments)"]
        ),
        (
            #"{"upstreams": {"y": {"kind": "yandex-disk", \#(auth), "linkOrigin": "http://x"}}}"#,
            ["upstreams.y.linkOrigin: unknown key"]
        ),
    ])
    func reportsExactly(json: String, expected: [String]) {
        #expect(fixture.errors(json, environment: ["P": "app-id"]) == expected)
    }
}
