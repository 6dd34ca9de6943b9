import Foundation
import SluiceCore
import Testing

struct ConfigLoaderTests {
    let fixture: ConfigFixture

    init() throws { fixture = try ConfigFixture() }

    @Test func loadsTheContractExample() throws {
        try fixture.write("dav-secret", "s3cret-digest\n")
        let keyPath = try fixture.write("cache-key", String(repeating: "ab", count: 32) + "\n")
        let json = """
            {
              "server": {"listen": "0.0.0.0:8080", "adminTokenEnv": "SLUICE_ADMIN_TOKEN", "threads": 4,
                         "maxConnections": 500, "maxConnectionsPerIP": 50, "idleTimeout": "30s", "headerTimeout": "5s",
                         "shutdownGrace": "5s", "adminListen": "[::1]:9090"},
              "cache": {"directory": "cache", "maxSize": "20GiB", "maxAge": "90d", "chunkSize": "1MiB",
                        "readahead": "8MiB", "revalidateAfter": "15m", "encryptionKeyFile": "\(keyPath)",
                        "hugePages": true},
              "logging": {"format": "json", "level": "debug"},
              "upstreams": {
                "nas": {"kind": "webdav", "baseURL": "https://nas.example/dav",
                        "auth": {"type": "basic", "username": "alice", "passwordEnv": "NAS_PASSWORD"},
                        "timeouts": {"connect": "5s", "firstByte": "20s", "lowSpeedTime": "1m",
                                     "lowSpeedBytesPerSecond": 1024}},
                "docs": {"kind": "webdav", "baseURL": "https://dav.example/",
                         "auth": {"type": "digest", "username": "bob", "passwordFile": "dav-secret"}},
                "cdn": {"kind": "http", "baseURL": "https://media.example/",
                        "headers": {"X-Api-Key": {"env": "CDN_KEY"}, "User-Agent": "sluice"}},
                "api": {"kind": "http", "baseURL": "http://127.0.0.1:8000/v1/", "auth": {"type": "bearer", "tokenEnv": "API_TOKEN"}},
                "local": {"kind": "directory", "root": "./media/"}
              }
            }
            """
        let environment = ["SLUICE_ADMIN_TOKEN": "admin-t", "NAS_PASSWORD": "pw", "CDN_KEY": "k", "API_TOKEN": "tok"]
        let config = try fixture.parse(json, environment: environment)

        #expect(config.server.listen == ListenAddress(host: "0.0.0.0", port: 8080))
        #expect(config.server.adminListen == ListenAddress(host: "::1", port: 9090))
        #expect(config.server.adminToken == Secret("admin-t"))
        #expect(config.server.threads == 4)
        #expect(config.server.maxConnections == 500)
        #expect(config.server.maxConnectionsPerIP == 50)
        #expect(config.server.idleTimeout == .seconds(30))
        #expect(config.server.headerTimeout == .seconds(5))
        #expect(config.server.shutdownGrace == .seconds(5))

        #expect(config.cache.directory == fixture.base.appendingPathComponent("cache").standardizedFileURL.path)
        #expect(config.cache.maxSize == 20 << 30)
        #expect(config.cache.maxAge == .seconds(90 * 86_400))
        #expect(config.cache.chunkSize == 1 << 20 && config.cache.chunkSizeIsSet)
        #expect(config.cache.readahead == 8 << 20)
        #expect(config.cache.revalidateAfter == .seconds(900))
        #expect(config.cache.hugePages)
        #expect(config.cache.encryptionKeyBytes == [UInt8](repeating: 0xAB, count: 32))

        #expect(config.logging.format == .json)
        #expect(config.logging.level == .debug)

        #expect(config.upstreams.keys.sorted() == ["api", "cdn", "docs", "local", "nas"])
        #expect(config.upstreams["nas"]?.name == "nas")
        #expect(config.upstreams["nas"]?.kind == .webdav)
        let nas = try #require(config.upstreams["nas"]?.server)
        #expect(nas.baseURL == "https://nas.example/dav/")
        #expect(nas.auth == .basic(username: "alice", password: Secret("pw")))
        #expect(nas.requests.timeouts.connect == .seconds(5))
        #expect(nas.requests.timeouts.firstByte == .seconds(20))
        #expect(nas.requests.timeouts.lowSpeedTime == .seconds(60))
        #expect(nas.requests.timeouts.lowSpeedBytesPerSecond == 1_024)
        #expect(config.upstreams["docs"]?.server?.auth == .digest(username: "bob", password: Secret("s3cret-digest")))
        #expect(config.upstreams["docs"]?.server?.requests.timeouts == UpstreamTimeouts())
        #expect(config.upstreams["cdn"]?.server?.headers == ["X-Api-Key": Secret("k"), "User-Agent": Secret("sluice")])
        #expect(config.upstreams["cdn"]?.server?.auth == AuthConfig.none)
        #expect(config.upstreams["api"]?.server?.auth == .bearer(token: Secret("tok")))
        #expect(config.upstreams["api"]?.server?.baseURL == "http://127.0.0.1:8000/v1/")
        let local = try #require(config.upstreams["local"])
        #expect(local.kind == .directory)
        #expect(local.folder?.root == fixture.base.appendingPathComponent("media").resolvingSymlinksInPath().path)
        #expect(local.server == nil)
    }

    @Test func fillsDefaults() throws {
        let config = try fixture.parse(minimalConfig())
        #expect(config.server.listen == ListenAddress(host: "0.0.0.0", port: 8080))
        #expect(config.server.adminListen == nil)
        #expect(config.server.adminToken == nil)
        #expect(config.server.maxConnections == ServerConfig().maxConnections)
        #expect(config.cache.directory == fixture.base.appendingPathComponent(".sluice-cache").standardizedFileURL.path)
        #expect(config.cache.maxSize == CacheConfig().maxSize)
        #expect(config.cache.chunkSize == 128 << 10 && !config.cache.chunkSizeIsSet)
        #expect(config.cache.encryptionKey == nil)
        #expect(config.cache.encryptionKeyBytes == nil)
        #expect(!config.cache.hugePages)
        #expect(config.logging.format == .text)
        #expect(config.logging.level == .info)
        #expect(config.upstreams.count == 1)
    }

    @Test func loadsFromAFileRelativeToItsDirectory() throws {
        let path = try fixture.write("sluice.json", minimalConfig(#""cache": {"directory": "c"}"#))
        let config = try ConfigLoader.load(path: path, environment: [:])
        #expect(config.cache.directory == fixture.base.appendingPathComponent("c").standardizedFileURL.path)
        #expect(
            config.upstreams["local"]?.folder?.root
                == fixture.base.appendingPathComponent("media").resolvingSymlinksInPath().path)
    }

    @Test func resolvesSymlinkedRoots() throws {
        let link = fixture.base.appendingPathComponent("link")
        try FileManager.default.createSymbolicLink(
            at: link, withDestinationURL: fixture.base.appendingPathComponent("media"))
        let config = try fixture.parse(#"{"upstreams": {"l": {"kind": "directory", "root": "link"}}}"#)
        let media = fixture.base.appendingPathComponent("media").resolvingSymlinksInPath().path
        #expect(config.upstreams["l"]?.folder?.root == media)
        #expect(config.upstreams["l"]?.folder?.root.hasSuffix("/media") == true)
    }

    @Test func reportsUnreadableFiles() throws {
        let missing = fixture.base.appendingPathComponent("nope.json").path
        #expect(throws: ConfigErrors([ConfigError(key: "", message: "\(missing) does not exist")])) {
            try ConfigLoader.load(path: missing, environment: [:])
        }
        #expect(throws: ConfigErrors([ConfigError(key: "", message: "\(fixture.base.path) is a directory")])) {
            try ConfigLoader.load(path: fixture.base.path, environment: [:])
        }
    }

    @Test(arguments: ["", "{", "[1]", "null", "{\"upstreams\": }", "\"text\""])
    func rejectsDocumentsThatAreNotObjects(json: String) throws {
        let errors = fixture.errors(json)
        #expect(errors.count == 1)
        #expect(errors.first?.hasPrefix("not valid JSON") == true || errors.first == "expected an object")
    }

    @Test func collectsEveryProblem() {
        let errors = fixture.errors(
            """
            {"server": {"listen": "nowhere", "bogus": 1},
             "cache": {"maxSize": "lots", "chunkSize": "3MiB"},
             "logging": {"format": "xml"},
             "upstreams": {"nas": {"kind": "webdav", "baseURL": "ftp://x/",
                                   "auth": {"type": "basic", "username": "a", "pasword": "x"}}}}
            """)
        #expect(
            errors == [
                "server.bogus: unknown key",
                #"server.listen: expected an address and port like "0.0.0.0:8080" or "[::1]:8080""#,
                #"cache.maxSize: expected a size like "20GiB": "lots" is not a whole number followed by a unit"#,
                "cache.chunkSize: must be a power of two from 64KiB to 64MiB",
                #"logging.format: expected one of "text", "json""#,
                "upstreams.nas.baseURL: expected an absolute http:// or https:// URL",
                "upstreams.nas.auth.pasword: unknown key",
                "upstreams.nas.auth: missing passwordEnv or passwordFile",
            ])
        #expect(
            ConfigErrors([ConfigError(key: "a", message: "b"), ConfigError(key: "", message: "c")]).description
                == "a: b\nc")
    }
}
