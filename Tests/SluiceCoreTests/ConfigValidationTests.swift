import SluiceCore
import Testing

struct ConfigValidationTests {
    let fixture: ConfigFixture

    init() throws { fixture = try ConfigFixture() }

    /// Each configuration and the exact error lines it produces.
    @Test(arguments: [
        // Top level.
        (#"{"upstreams": {}}"#, ["upstreams: at least one upstream is required"]),
        (#"{}"#, ["upstreams: missing required key"]),
        (#"{"upstreams": []}"#, ["upstreams: expected an object"]),
        (minimalConfig(#""extra": 1"#), ["extra: unknown key"]),
        (
            minimalConfig(#""signing": {}"#),
            ["signing.currentKey: missing required key", "signing.keys: missing required key"]
        ),
        (
            minimalConfig(#""signing": {"currentKey": "k2", "keys": {"k1": {"secretEnv": "SHORT"}, "bad key": {}}}"#),
            [
                #"signing.keys.bad key: a key ID is 1 to 64 letters, digits, ".", "_" or "-""#,
                "signing.keys.k1.secretEnv: environment variable SHORT is not set",
            ]
        ),
        (
            minimalConfig(
                #""server": {"cors": {"allowedOrigins": ["https://a.example/path", "HTTPS://B.example", "*"]}}"#),
            [
                #"server.cors.allowedOrigins[0]: expected "*" or an origin like "https://app.example" (scheme, host, optional port)"#,
                #"server.cors.allowedOrigins[1]: expected "*" or an origin like "https://app.example" (scheme, host, optional port)"#,
            ]
        ),
        (
            minimalConfig(#""server": {"cors": {"allowedOrigins": []}}"#),
            ["server.cors.allowedOrigins: expected a non-empty array of origins"]
        ),
        (minimalConfig(#""server": 5"#), ["server: expected an object"]),
        // Server.
        (
            minimalConfig(#""server": {"listen": "localhost:8080"}"#),
            [#"server.listen: expected an address and port like "0.0.0.0:8080" or "[::1]:8080""#]
        ),
        (minimalConfig(#""server": {"listen": 8080}"#), ["server.listen: expected a string"]),
        (minimalConfig(#""server": {"threads": -1}"#), ["server.threads: expected a whole number from 0 to 1024"]),
        (minimalConfig(#""server": {"threads": 2.5}"#), ["server.threads: expected a whole number from 0 to 1024"]),
        (minimalConfig(#""server": {"threads": true}"#), ["server.threads: expected a whole number from 0 to 1024"]),
        (minimalConfig(#""server": {"threads": "4"}"#), ["server.threads: expected a whole number from 0 to 1024"]),
        (
            minimalConfig(#""server": {"maxConnections": 0}"#),
            ["server.maxConnections: expected a whole number from 1 to 1000000"]
        ),
        (
            minimalConfig(#""server": {"maxConnections": 10, "maxConnectionsPerIP": 20}"#),
            ["server.maxConnectionsPerIP: must not exceed maxConnections (10)"]
        ),
        (minimalConfig(#""server": {"idleTimeout": "0s"}"#), ["server.idleTimeout: must be longer than zero"]),
        (minimalConfig(#""server": {"headerTimeout": "0s"}"#), ["server.headerTimeout: must be longer than zero"]),
        (minimalConfig(#""server": {"idleTimeout": 30}"#), [#"server.idleTimeout: expected a duration like "30s""#]),
        (
            minimalConfig(#""server": {"idleTimeout": "9223372036854775807s"}"#),
            [#"server.idleTimeout: expected a duration like "30s": "9223372036854775807s" is too large"#]
        ),
        (
            minimalConfig(#""cache": {"maxSize": 9223372036854775807}"#),
            ["cache.maxSize: expected a size from 0 to 9007199254740991 bytes"]
        ),
        // A name given twice in one object: JSON parsers keep the last one silently.
        (
            minimalConfig(#""server": {"listen": "127.0.0.1:1", "listen": "127.0.0.1:2"}"#),
            ["server.listen: is given more than once (only one may be)"]
        ),
        (
            #"{"upstreams": {"a": {"kind": "http", "baseURL": "https://x/"}, "a": {"kind": "http", "baseURL": "https://y/"}}}"#,
            ["upstreams.a: is given more than once (only one may be)"]
        ),
        (
            minimalConfig(#""server": {"listen": "127.0.0.1:1", "li\u0073ten": "127.0.0.1:2"}"#),
            ["server.listen: is given more than once (only one may be)"]
        ),
        (
            minimalConfig(#""server": {"shutdownGrace": "5 weeks"}"#),
            [#"server.shutdownGrace: expected a duration like "30s": "5 weeks" has an unknown unit "weeks""#]
        ),
        (
            minimalConfig(#""server": {"adminToken": "hunter2"}"#),
            ["server.adminToken: secrets must come from adminTokenEnv or adminTokenFile, not the file itself"]
        ),
        (
            minimalConfig(#""server": {"listen": "127.0.0.1:80", "adminListen": "127.0.0.1:80"}"#),
            ["server.adminListen: must differ from listen"]
        ),
        // Cache.
        (minimalConfig(#""cache": {"maxSize": true}"#), [#"cache.maxSize: expected a size like "20GiB""#]),
        (
            minimalConfig(#""cache": {"maxSize": "-1GiB"}"#),
            [#"cache.maxSize: expected a size like "20GiB": "-1GiB" is negative"#]
        ),
        (minimalConfig(#""cache": {"hugePages": 1}"#), ["cache.hugePages: expected true or false"]),
        (minimalConfig(#""cache": {"hugePages": "no"}"#), ["cache.hugePages: expected true or false"]),
        (
            minimalConfig(#""cache": {"readahead": "-8MiB"}"#),
            [#"cache.readahead: expected a size like "20GiB": "-8MiB" is negative"#]
        ),
        (
            minimalConfig(#""cache": {"maxSize": "99999999TiB"}"#),
            [#"cache.maxSize: expected a size like "20GiB": "99999999TiB" is too large"#]
        ),
        (
            minimalConfig(#""cache": {"chunkSize": "32KiB"}"#),
            ["cache.chunkSize: must be a power of two from 64KiB to 64MiB"]
        ),
        (
            minimalConfig(#""cache": {"chunkSize": "128MiB"}"#),
            ["cache.chunkSize: must be a power of two from 64KiB to 64MiB"]
        ),
        (
            minimalConfig(#""cache": {"chunkSize": "1000KB"}"#),
            ["cache.chunkSize: must be a power of two from 64KiB to 64MiB"]
        ),
        (
            minimalConfig(#""cache": {"maxSize": "15MiB", "chunkSize": "1MiB"}"#),
            ["cache.maxSize: must be at least 16 chunks (16777216 bytes)"]
        ),
        (minimalConfig(#""cache": {"maxAge": "0d"}"#), ["cache.maxAge: must be longer than zero"]),
        (minimalConfig(#""cache": {"directory": "media/../media"}"#), []),
        (
            minimalConfig(#""cache": {"encryptionKey": "00"}"#),
            ["cache.encryptionKey: secrets must come from encryptionKeyEnv or encryptionKeyFile, not the file itself"]
        ),
        (
            minimalConfig(#""logging": {"level": "trace"}"#),
            [#"logging.level: expected one of "debug", "info", "warning", "error""#]
        ),
        // Upstream names and kinds.
        (
            #"{"upstreams": {"9lives": {"kind": "directory", "root": "media"}}}"#,
            [#"upstreams.9lives: invalid upstream name: a letter, then letters, digits, "+", "-" or ".""#]
        ),
        (
            #"{"upstreams": {"a_b": {"kind": "directory", "root": "media"}}}"#,
            [#"upstreams.a_b: invalid upstream name: a letter, then letters, digits, "+", "-" or ".""#]
        ),
        (
            #"{"upstreams": {"Nas": {"kind": "directory", "root": "media"}, "nas": {"kind": "directory", "root": "media"}}}"#,
            [#"upstreams.nas: clashes with "Nas": asset ID schemes are case-insensitive (RFC 3986 §3.1)"#]
        ),
        (#"{"upstreams": {"x": {"root": "media"}}}"#, ["upstreams.x.kind: missing required key"]),
        (#"{"upstreams": {"x": "directory"}}"#, ["upstreams.x: expected an object"]),
        (
            #"{"upstreams": {"x": {"kind": "ftp"}}}"#,
            [
                #"upstreams.x.kind: unknown kind "ftp" (expected one of webdav, http, directory, s3, google-drive, dropbox, onedrive, yandex-disk, box)"#
            ]
        ),
        // S3 upstreams.
        (s3Upstream(), []),
        (s3Upstream(#""auth": {"type": "none"}"#), []),
        (s3Upstream(#""endpoint": "http://127.0.0.1:9000", "pathStyle": true"#), []),
        (
            #"{"upstreams": {"films": {"kind": "s3", "endpoint": "https://s3.example", "region": "eu-west-1"}}}"#,
            ["upstreams.films.bucket: missing required key"]
        ),
        (
            #"{"upstreams": {"films": {"kind": "s3", "endpoint": "https://s3.example", "bucket": "films"}}}"#,
            ["upstreams.films.region: missing required key"]
        ),
        (
            #"{"upstreams": {"films": {"kind": "s3", "bucket": "films", "region": "eu-west-1"}}}"#,
            ["upstreams.films.endpoint: missing required key"]
        ),
        (
            s3Upstream(#""endpoint": "s3.example""#),
            ["upstreams.films.endpoint: expected an absolute http:// or https:// URL"]
        ),
        (
            s3Upstream(#""endpoint": "https://s3.example/films""#),
            [
                #"upstreams.films.endpoint: expected only scheme, host and port (like "https://s3.eu-west-1.amazonaws.com")"#
            ]
        ),
        (
            s3Upstream(#""endpoint": "https://key:secret@s3.example""#),
            [
                #"upstreams.films.endpoint: expected only scheme, host and port (like "https://s3.eu-west-1.amazonaws.com")"#
            ]
        ),
        (
            s3Upstream(#""endpoint": "http://127.0.0.1:9000""#),
            [#"upstreams.films.pathStyle: an endpoint with an IP address needs "pathStyle": true"#]
        ),
        (
            s3Upstream(#""bucket": "My_Films""#),
            [#"upstreams.films.bucket: expected a bucket name of 3 to 63 lowercase letters, digits, "." and "-""#]
        ),
        (s3Upstream(#""bucket": "My_Films", "pathStyle": true"#), []),
        (
            s3Upstream(#""bucket": "x""#),
            [#"upstreams.films.bucket: expected a bucket name of 3 to 63 lowercase letters, digits, "." and "-""#]
        ),
        (
            s3Upstream(#""region": "eu:west""#),
            [#"upstreams.films.region: expected a region name like "eu-west-1" (lowercase letters, digits, "-")"#]
        ),
        (s3Upstream(#""pathStyle": "yes""#), ["upstreams.films.pathStyle: expected true or false"]),
        (s3Upstream(#""baseURL": "https://x/""#), ["upstreams.films.baseURL: unknown key"]),
        (s3Upstream(#""redirectHosts": []"#), ["upstreams.films.redirectHosts: unknown key"]),
        (
            s3Upstream(
                #""auth": {"type": "sigv4", "accessKeyIdEnv": "P", "accessKeyIdFile": "k", "secretAccessKeyEnv": "P"}"#),
            ["upstreams.films.auth: give either accessKeyIdEnv or accessKeyIdFile, not both"]
        ),
        (
            s3Upstream(#""auth": {"type": "sigv4", "accessKeyIdEnv": "P"}"#),
            ["upstreams.films.auth: missing secretAccessKeyEnv or secretAccessKeyFile"]
        ),
        (
            s3Upstream(
                #""auth": {"type": "sigv4", "accessKeyIdEnv": "P", "secretAccessKey": "pw", "secretAccessKeyEnv": "P"}"#
            ),
            [
                "upstreams.films.auth.secretAccessKey: secrets must come from secretAccessKeyEnv or secretAccessKeyFile, not the file itself"
            ]
        ),
        (
            s3Upstream(#""auth": {"type": "sigv4", "accessKeyIdEnv": "P", "secretAccessKeyEnv": "UNSET"}"#),
            ["upstreams.films.auth.secretAccessKeyEnv: environment variable UNSET is not set"]
        ),
        (
            s3Upstream(#""auth": {"type": "basic", "username": "a", "passwordEnv": "P"}"#),
            [#"upstreams.films.auth.type: an s3 upstream takes auth type sigv4 or none, not "basic""#]
        ),
        (
            s3Upstream(#""headers": {"x-amz-date": "20260101T000000Z"}"#),
            ["upstreams.films.headers.x-amz-date: is set by SigV4 signing and cannot be configured"]
        ),
        (
            s3Upstream(#""headers": {"Authorization": {"env": "P"}}"#),
            ["upstreams.films.headers.Authorization: only http upstreams take a static Authorization header; use auth"]
        ),
        (s3Upstream(#""headers": {"x-amz-request-payer": "requester"}, "timeouts": {"connect": "2s"}"#), []),
        // Directory upstreams.
        (#"{"upstreams": {"l": {"kind": "directory"}}}"#, ["upstreams.l.root: missing required key"]),
        (
            #"{"upstreams": {"l": {"kind": "directory", "root": "media", "auth": {"type": "none"}}}}"#,
            ["upstreams.l.auth: a directory upstream takes no auth"]
        ),
        (
            #"{"upstreams": {"l": {"kind": "directory", "root": "media", "headers": {}, "colour": 1}}}"#,
            ["upstreams.l.colour: unknown key", "upstreams.l.headers: a directory upstream takes no headers"]
        ),
        (
            #"{"upstreams": {"l": {"kind": "directory", "root": "media", "access": "signed"}}}"#,
            [#"upstreams.l.access: "signed" needs a signing section with its keys"#]
        ),
        (
            #"{"upstreams": {"l": {"kind": "directory", "root": "media", "access": "open"}}}"#,
            [#"upstreams.l.access: expected "public" or "signed""#]
        ),
        (#"{"upstreams": {"l": {"kind": "directory", "root": "media", "access": "public"}}}"#, []),
        // HTTP and WebDAV upstreams.
        (#"{"upstreams": {"h": {"kind": "http"}}}"#, ["upstreams.h.baseURL: missing required key"]),
        (
            #"{"upstreams": {"h": {"kind": "http", "baseURL": "/relative/"}}}"#,
            ["upstreams.h.baseURL: expected an absolute http:// or https:// URL"]
        ),
        (
            #"{"upstreams": {"h": {"kind": "http", "baseURL": "https://"}}}"#,
            ["upstreams.h.baseURL: expected an absolute http:// or https:// URL"]
        ),
        (
            #"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://alice:pw@nas.example/"}}}"#,
            ["upstreams.h.baseURL: must not hold credentials: put them in auth"]
        ),
        (
            #"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://nas.example/?a=1"}}}"#,
            ["upstreams.h.baseURL: must not have a query or fragment: asset paths are appended to it"]
        ),
        (
            #"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://nas.example/", "root": "media"}}}"#,
            ["upstreams.h.root: unknown key"]
        ),
        (
            #"{"upstreams": {"h": {"kind": "http", "baseURL": "https://x/", "timeouts": {"connect": "0s", "firstbyte": "1s"}}}}"#,
            ["upstreams.h.timeouts.firstbyte: unknown key", "upstreams.h.timeouts.connect: must be longer than zero"]
        ),
        (
            #"{"upstreams": {"h": {"kind": "http", "baseURL": "https://x/", "timeouts": {"lowSpeedBytesPerSecond": -1}}}}"#,
            ["upstreams.h.timeouts.lowSpeedBytesPerSecond: expected a whole number from 0 to 2147483647"]
        ),
        (
            #"{"upstreams": {"h": {"kind": "http", "baseURL": "https://x/", "timeouts": {"firstByte": "9223372036854775807s"}}}}"#,
            [#"upstreams.h.timeouts.firstByte: expected a duration like "30s": "9223372036854775807s" is too large"#]
        ),
        // Auth.
        (
            #"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://x/", "auth": {}}}}"#,
            ["upstreams.h.auth.type: missing required key"]
        ),
        (
            #"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://x/", "auth": {"type": "ntlm"}}}}"#,
            [
                #"upstreams.h.auth.type: unknown auth type "ntlm" (expected none, basic, digest, bearer, sigv4 or oauth2)"#
            ]
        ),
        (
            #"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://x/", "auth": {"type": "oauth2", "clientIdEnv": "P", "tokenFile": "t.json"}}}}"#,
            [#"upstreams.h.auth.type: "oauth2" needs a kind with a token endpoint (onedrive)"#]
        ),
        // OneDrive signs in with OAuth2; the token file may not exist yet, its folder must.
        (
            #"{"upstreams": {"o": {"kind": "onedrive", "auth": {"type": "oauth2", "clientIdEnv": "P", "tokenFile": "t.json", "tokenURL": "http://127.0.0.1:9/token"}, "apiBaseURL": "http://127.0.0.1:9/v1.0", "contentBaseURL": "http://127.0.0.1:10"}}}"#,
            []
        ),
        // Redirect delivery needs a provider that hands out header-free download URLs.
        (
            #"{"upstreams": {"o": {"kind": "onedrive", "delivery": "redirect", "redirectStatus": 302, "auth": {"type": "oauth2", "clientIdEnv": "P", "tokenFile": "t.json"}}}}"#,
            []
        ),
        (
            #"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://x/", "delivery": "redirect"}}}"#,
            [
                #"upstreams.h.delivery: "redirect" needs a kind whose provider hands out header-free download URLs (s3, dropbox, onedrive, yandex-disk, box); a webdav upstream's bytes need the gateway"#
            ]
        ),
        (
            #"{"upstreams": {"h": {"kind": "http", "baseURL": "https://x/", "delivery": "copy", "redirectStatus": 302}}}"#,
            [#"upstreams.h.delivery: expected "proxy" or "redirect""#]
        ),
        (
            #"{"upstreams": {"h": {"kind": "http", "baseURL": "https://x/", "redirectStatus": 302}}}"#,
            [#"upstreams.h.redirectStatus: goes with "delivery": "redirect""#]
        ),
        (
            #"{"upstreams": {"o": {"kind": "onedrive", "delivery": "redirect", "redirectStatus": 303, "auth": {"type": "oauth2", "clientIdEnv": "P", "tokenFile": "t.json"}}}}"#,
            ["upstreams.o.redirectStatus: expected 307 or 302"]
        ),
        (
            #"{"upstreams": {"o": {"kind": "onedrive"}}}"#,
            [#"upstreams.o.auth: missing required key: this kind signs in with {"type": "oauth2", …}"#]
        ),
        (
            #"{"upstreams": {"o": {"kind": "onedrive", "baseURL": "https://x/", "auth": {"type": "basic", "username": "a", "passwordEnv": "P"}}}}"#,
            [
                "upstreams.o.baseURL: unknown key",
                #"upstreams.o.auth.type: this kind signs in with "oauth2", not "basic""#,
            ]
        ),
        (
            #"{"upstreams": {"o": {"kind": "onedrive", "auth": {"type": "oauth2", "tokenFile": "t.json", "tokenURL": "ftp://x", "token": "x"}}}}"#,
            [
                "upstreams.o.auth.token: unknown key", "upstreams.o.auth: missing clientIdEnv or clientIdFile",
                "upstreams.o.auth.tokenURL: expected an absolute http:// or https:// URL without credentials",
            ]
        ),
        (
            #"{"upstreams": {"h": {"kind": "http", "baseURL": "https://x/", "auth": {"type": "sigv4"}}}}"#,
            [#"upstreams.h.auth.type: "sigv4" signs requests to s3 upstreams only"#]
        ),
        (
            #"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://x/", "auth": {"type": "none", "username": "a"}}}}"#,
            ["upstreams.h.auth.username: unknown key"]
        ),
        (
            #"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://x/", "auth": {"type": "basic", "username": "a", "password": "pw"}}}}"#,
            [
                "upstreams.h.auth.password: secrets must come from passwordEnv or passwordFile, not the file itself",
                "upstreams.h.auth: missing passwordEnv or passwordFile",
            ]
        ),
        (
            #"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://x/", "auth": {"type": "basic", "passwordEnv": "P"}}}}"#,
            ["upstreams.h.auth.username: missing required key"]
        ),
        (
            #"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://x/", "auth": {"type": "basic", "username": "a:b", "passwordEnv": "P"}}}}"#,
            [#"upstreams.h.auth.username: must not contain ":" with basic auth (RFC 7617)"#]
        ),
        (
            #"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://x/", "auth": {"type": "digest", "username": "a:b", "passwordEnv": "P"}}}}"#,
            []
        ),
        (
            #"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://x/", "auth": {"type": "basic", "username": "", "passwordEnv": "P"}}}}"#,
            ["upstreams.h.auth.username: expected a non-empty name without control characters"]
        ),
        (
            #"{"upstreams": {"h": {"kind": "webdav", "baseURL": "https://x/", "auth": {"type": "basic", "username": "a", "passwordEnv": "P", "passwordFile": "f"}}}}"#,
            ["upstreams.h.auth: give either passwordEnv or passwordFile, not both"]
        ),
        (
            #"{"upstreams": {"h": {"kind": "http", "baseURL": "https://x/", "auth": {"type": "bearer", "token": "abc"}}}}"#,
            [
                "upstreams.h.auth.token: secrets must come from tokenEnv or tokenFile, not the file itself",
                "upstreams.h.auth: missing tokenEnv or tokenFile",
            ]
        ),
        (
            #"{"upstreams": {"h": {"kind": "http", "baseURL": "https://x/", "auth": {"type": "bearer", "tokenEnv": 5}}}}"#,
            ["upstreams.h.auth.tokenEnv: expected a string"]
        ),
    ])
    func reportsExactly(json: String, expected: [String]) {
        #expect(fixture.errors(json, environment: ["P": "pw"]) == expected)
    }

    @Test func reportsMissingAndMisplacedRoots() throws {
        let file = try fixture.write("plain.txt", "x")
        let missing = fixture.base.appendingPathComponent("absent").path
        #expect(
            fixture.errors(#"{"upstreams": {"l": {"kind": "directory", "root": "absent"}}}"#)
                == ["upstreams.l.root: \(missing) does not exist"])
        #expect(
            fixture.errors(#"{"upstreams": {"l": {"kind": "directory", "root": "\#(file)"}}}"#)
                == ["upstreams.l.root: \(file) is not a directory"])
        #expect(
            fixture.errors(minimalConfig(#""cache": {"directory": "plain.txt"}"#)) == [
                "cache.directory: \(file) exists and is not a directory"
            ])
    }

    @Test(arguments: [
        ("https://nas.example/dav", "https://nas.example/dav/"),
        ("https://nas.example/dav/", "https://nas.example/dav/"),
        ("http://nas.example", "http://nas.example/"),
        ("HTTPS://Nas.Example:8443/a%20b", "HTTPS://Nas.Example:8443/a%20b/"),
        ("http://[::1]:8080/", "http://[::1]:8080/"), ("https://x/my media", "https://x/my%20media/"),
    ])
    func normalisesBaseURLs(url: String, expected: String) throws {
        let config = try fixture.parse(#"{"upstreams": {"h": {"kind": "http", "baseURL": "\#(url)"}}}"#)
        #expect(config.upstreams["h"]?.server?.baseURL == expected)
    }
}
