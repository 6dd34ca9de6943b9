import Foundation
import SluiceTestSupport
import Testing

/// Every kind of secret the configuration takes, each a marker value, through `check-config` and a running gateway
/// process: no marker appears in any output, log line (at debug level), response or `/admin` answer, and the
/// secret files (left mode 0644 here) are warned about by name.
@Suite struct SecretAuditTests {
    /// A marker per secret kind; key material is hex, so that it is a valid key and still greppable.
    static let markers: [String: String] = [
        "admin": "mk-admin-\(UInt64.random(in: .min ... .max))",
        "bearer": "mk-bearer-\(UInt64.random(in: .min ... .max))",
        "header": "mk-header-\(UInt64.random(in: .min ... .max))",
        "basic": "mk-basic-\(UInt64.random(in: .min ... .max))",
        "digest": "mk-digest-\(UInt64.random(in: .min ... .max))",
        "keyID": "MKKEYID\(UInt32.random(in: .min ... .max))",
        "secretKey": "mk-secretkey-\(UInt64.random(in: .min ... .max))",
        "session": "mk-session-\(UInt64.random(in: .min ... .max))",
        "signing": "mk-signing-key-of-at-least-32-bytes-\(UInt64.random(in: .min ... .max))",
        "cacheKey": (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined(),
        "previousKey": (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined(),
    ]

    @Test func noSecretInAnyOutput() async throws {
        let media = try TemporaryDirectory()
        let data = try await RandomData.file("song.mp3", in: media, count: 300_000)
        let origin = try await Peer.faultOrigin(root: media.path)
        let secrets = try TemporaryDirectory()
        var file: [String: String] = [:]
        for (name, value) in Self.markers {
            file[name] = try secrets.write(name, Array(value.utf8))
            chmod(file[name]!, 0o644)
        }
        let config = """
            {
              "server": {"listen": "127.0.0.1:0", "adminTokenFile": "\(file["admin"]!)"},
              "cache": {"directory": "./cache", "encryptionKeyFile": "\(file["cacheKey"]!)",
                        "previousKeyFiles": ["\(file["previousKey"]!)"]},
              "logging": {"level": "debug"},
              "signing": {"currentKey": "k1", "keys": {"k1": {"secretFile": "\(file["signing"]!)"}}},
              "upstreams": {
                "bearer": {"kind": "http", "baseURL": "\(origin.baseURL)",
                           "auth": {"type": "bearer", "tokenFile": "\(file["bearer"]!)"},
                           "headers": {"X-Key": {"file": "\(file["header"]!)"}}},
                "basic": {"kind": "http", "baseURL": "\(origin.baseURL)",
                          "auth": {"type": "basic", "username": "u", "passwordFile": "\(file["basic"]!)"}},
                "digest": {"kind": "http", "baseURL": "\(origin.baseURL)",
                           "auth": {"type": "digest", "username": "u", "passwordFile": "\(file["digest"]!)"}},
                "s3": {"kind": "s3", "endpoint": "\(origin.baseURL)", "pathStyle": true, "bucket": "media",
                       "region": "auto", "auth": {"type": "sigv4", "accessKeyIdFile": "\(file["keyID"]!)",
                       "secretAccessKeyFile": "\(file["secretKey"]!)", "sessionTokenFile": "\(file["session"]!)"}},
                "signed": {"kind": "directory", "root": "\(media.path)", "access": "signed"}
              }
            }
            """
        let configPath = try secrets.write("sluice.json", Array(config.utf8))
        var outputs: [(String, String)] = []

        let checked = try await CommandRun.run(try Repository.sluiceExecutable(), ["check-config", configPath])
        #expect(checked.status == 0, "\(checked.errors)")
        outputs.append(("check-config", checked.output + checked.errors))
        // Every secret file is named in a warning (mode 644), never its contents.
        for name in Self.markers.keys {
            #expect(checked.errors.contains("file \(file[name]!) holds a secret"), "\(name)")
        }

        try await GatewayProcess.run(configJSON: config) { gateway in
            let admin = ["Authorization": "Bearer \(Self.markers["admin"]!)"]
            for upstream in ["bearer", "basic", "digest", "s3", "signed"] {
                for path in ["song.mp3", "missing.mp3"] {
                    let result = try await TestHTTP.get(
                        gateway.streamURL(upstream, path), headers: ["Range": "bytes=0-9999"])
                    if upstream != "s3" && upstream != "signed" && path == "song.mp3" {
                        #expect(result.status == 206 && result.body == Array(data[0...9_999]), "\(upstream)")
                    }
                    outputs.append(("GET \(upstream)/\(path)", result.everything))
                }
            }
            let resolved = try await TestHTTP.request(
                "POST", gateway.url("/resolve"), headers: ["Content-Type": "application/json"],
                body: Array(#"{"assetId": "signed://song.mp3"}"#.utf8))
            #expect(resolved.status == 200)
            outputs.append(("POST /resolve", resolved.everything))
            for target in [
                "/admin/cache", "/admin/upstreams", "/metrics", "/admin/cache/assets", "/admin/rekey", "/healthz",
                "/readyz",
            ] {
                outputs.append(
                    ("GET \(target)", try await TestHTTP.get(gateway.url(target), headers: admin).everything))
            }
            let wrong = try await TestHTTP.get(
                gateway.url("/admin/cache"), headers: ["Authorization": "Bearer \(Self.markers["admin"]!)x"])
            #expect(wrong.status == 401)
            outputs.append(("wrong admin token", wrong.everything))
            #expect(await gateway.stop() == .exited(0))
            outputs.append(("gateway log", gateway.log()))
        }
        for (source, text) in outputs {
            for (name, marker) in Self.markers {
                #expect(!text.contains(marker), "the \(name) secret appears in \(source)")
            }
        }
        #expect(outputs.count > 15)
    }
}
