import Foundation
import SluiceCore
import Testing

struct GoogleDriveConfigTests {
    let fixture: ConfigFixture

    init() throws { fixture = try ConfigFixture() }

    static let auth = #""auth": {"type": "oauth2", "clientIdEnv": "P", "clientSecretEnv": "S", "tokenFile": "t.json"}"#

    func drive(_ json: String) throws -> GoogleDriveConfig? {
        let config = try fixture.parse(json, environment: ["P": "client", "S": "secret"])
        guard case .googleDrive(let drive)? = config.upstreams["g"]?.source else { return nil }
        return drive
    }

    @Test func readsOAuth2AndTheDriveKeys() throws {
        let drive = try #require(
            try drive(
                #"""
                {"upstreams": {"g": {"kind": "google-drive", \#(Self.auth), "apiBaseURL": "http://127.0.0.1:9/drive/v3",
                  "driveId": "0ABcd-_9", "acknowledgeAbuse": true, "resourceKeys": {"1xYz": "0-AbC"},
                  "maxConcurrentRequests": 4}}}
                """#))
        guard case .oauth2(let oauth) = drive.auth else {
            Issue.record("not oauth2")
            return
        }
        #expect(oauth.clientID.value == "client" && oauth.clientSecret?.value == "secret")
        #expect(drive.apiBaseURL == "http://127.0.0.1:9/drive/v3/")
        #expect(drive.driveID == "0ABcd-_9" && drive.acknowledgeAbuse)
        #expect(drive.resourceKeys == ["1xYz": Secret("0-AbC")])
        #expect(drive.requests.maxConcurrentRequests == 4)
    }

    @Test func readsAServiceAccountKeyFile() throws {
        try fixture.write(
            "sa.json",
            #"""
            {"type": "service_account", "project_id": "p", "private_key_id": "abc123",
             "private_key": "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----\n",
             "client_email": "reader@p.iam.gserviceaccount.com", "token_uri": "https://oauth2.googleapis.com/token"}
            """#)
        let drive = try #require(
            try drive(
                #"""
                {"upstreams": {"g": {"kind": "google-drive",
                  "auth": {"type": "serviceAccount", "keyFile": "sa.json", "subject": "ann@example.com"}}}}
                """#))
        guard case .serviceAccount(let account) = drive.auth else {
            Issue.record("not a service account")
            return
        }
        #expect(account.clientEmail == "reader@p.iam.gserviceaccount.com" && account.keyID == "abc123")
        #expect(account.privateKey.value.hasPrefix("-----BEGIN PRIVATE KEY-----"))
        #expect(account.tokenURL == "https://oauth2.googleapis.com/token" && account.subject == "ann@example.com")
        #expect(account.keyFile == fixture.base.appendingPathComponent("sa.json").path)
        let config = try fixture.parse(
            #"{"upstreams": {"g": {"kind": "google-drive", "auth": {"type": "serviceAccount", "keyFile": "sa.json"}}}}"#
        )
        #expect(config.upstreams["g"]?.source.authType == "serviceAccount")
    }

    @Test func aKeyFileThatIsNoServiceAccountKeyIsNamedNotQuoted() throws {
        try fixture.write("user.json", #"{"type": "authorized_user", "private_key": "SECRET-VALUE"}"#)
        try fixture.write("half.json", #"{"type": "service_account", "private_key": "SECRET-VALUE"}"#)
        for (name, problem) in [
            ("user.json", "is not a service account key (JSON with \"type\": \"service_account\")"),
            ("half.json", "has no client_email or no PEM private_key"), ("none.json", "does not exist"),
        ] {
            let errors = fixture.errors(
                #"{"upstreams": {"g": {"kind": "google-drive", "auth": {"type": "serviceAccount", "keyFile": "\#(name)"}}}}"#
            )
            let path = fixture.base.appendingPathComponent(name).path
            #expect(errors == ["upstreams.g.auth.keyFile: file \(path) \(problem)"])
            #expect(!errors.joined().contains("SECRET-VALUE"))
        }
    }

    @Test(arguments: [
        (#"{"upstreams": {"g": {"kind": "google-drive", \#(auth)}}}"#, [String]()),
        (
            #"{"upstreams": {"g": {"kind": "google-drive"}}}"#,
            [
                #"upstreams.g.auth: missing required key: this kind signs in with {"type": "oauth2" or "serviceAccount", …}"#
            ]
        ),
        (
            #"{"upstreams": {"g": {"kind": "google-drive", "auth": {"type": "bearer", "tokenEnv": "P"}}}}"#,
            [#"upstreams.g.auth.type: this kind signs in with "oauth2" or "serviceAccount", not "bearer""#]
        ),
        (
            #"{"upstreams": {"g": {"kind": "google-drive", \#(auth), "driveId": "a/b", "contentBaseURL": "http://x/"}}}"#,
            [
                "upstreams.g.contentBaseURL: unknown key",
                #"upstreams.g.driveId: expected a shared drive ID (letters, digits, "-" and "_")"#,
            ]
        ),
        (
            #"{"upstreams": {"g": {"kind": "google-drive", \#(auth), "resourceKeys": {"a": "b c", "../x": "k"}}}}"#,
            [
                #"upstreams.g.resourceKeys.../x: expected a file ID (letters, digits, "-" and "_")"#,
                #"upstreams.g.resourceKeys.a: expected a resource key (letters, digits, "-" and "_")"#,
            ]
        ),
        (
            #"{"upstreams": {"g": {"kind": "google-drive", \#(auth), "delivery": "redirect"}}}"#,
            [
                #"upstreams.g.delivery: "redirect" needs a kind whose provider hands out header-free download URLs (s3, dropbox, onedrive, yandex-disk, box); a google-drive upstream's bytes need the gateway"#
            ]
        ),
    ])
    func reportsExactly(json: String, expected: [String]) {
        #expect(fixture.errors(json, environment: ["P": "client", "S": "secret"]) == expected)
    }
}
