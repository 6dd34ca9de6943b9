import Foundation
import SluiceCore
import Testing

struct ConfigSecretsTests {
    let fixture: ConfigFixture

    init() throws { fixture = try ConfigFixture() }

    private func bearer(_ auth: String) -> String {
        #"{"upstreams": {"h": {"kind": "http", "baseURL": "https://x/", "auth": {"type": "bearer", \#(auth)}}}}"#
    }

    @Test(arguments: [
        ("token-value\n", "token-value"), ("token-value\r\n", "token-value"), ("token-value", "token-value"),
        ("token-value\n\n", "token-value\n"), ("  spaced  \n", "  spaced  "),
    ])
    func trimsOneTrailingNewlineFromFiles(contents: String, expected: String) throws {
        try fixture.write("token", contents)
        let result = Result { () throws(ConfigErrors) in try fixture.parse(bearer(#""tokenFile": "token""#)) }
        switch result {
        case .success(let config): #expect(config.upstreams["h"]?.server?.auth == .bearer(token: Secret(expected)))
        case .failure(let errors):
            // An inner line break is refused, naming the file but never the value.
            #expect(expected.contains("\n"))
            #expect(errors.description.contains("holds a line break or NUL inside its value"))
            #expect(!errors.description.contains("token-value"))
        }
    }

    @Test func readsEnvironmentVariables() throws {
        let config = try fixture.parse(bearer(#""tokenEnv": "TOKEN""#), environment: ["TOKEN": "t0k3n"])
        #expect(config.upstreams["h"]?.server?.auth == .bearer(token: Secret("t0k3n")))
    }

    @Test func reportsMissingSecretsWithoutValues() throws {
        let directory = fixture.base.appendingPathComponent("media").path
        let cases: [(String, [String: String], String)] = [
            (
                #""tokenEnv": "NAS_PASSWORD""#, [:],
                "upstreams.h.auth.tokenEnv: environment variable NAS_PASSWORD is not set"
            ),
            (#""tokenEnv": "EMPTY""#, ["EMPTY": ""], "upstreams.h.auth.tokenEnv: environment variable EMPTY is empty"),
            (#""tokenEnv": """#, [:], "upstreams.h.auth.tokenEnv: expected an environment variable name"),
            (#""tokenFile": """#, [:], "upstreams.h.auth.tokenFile: expected a file path"),
            (
                #""tokenFile": "nope""#, [:],
                "upstreams.h.auth.tokenFile: file \(fixture.base.appendingPathComponent("nope").path) does not exist"
            ),
            (#""tokenFile": "media""#, [:], "upstreams.h.auth.tokenFile: file \(directory) is a directory"),
            (
                #""tokenEnv": "MULTI""#, ["MULTI": "secret-line-1\nsecret-line-2"],
                "upstreams.h.auth.tokenEnv: environment variable MULTI holds a line break or NUL inside its value"
            ),
        ]
        for (auth, environment, expected) in cases {
            #expect(fixture.errors(bearer(auth), environment: environment) == [expected])
        }
    }

    @Test func reportsEmptyAndOversizedFiles() throws {
        let empty = try fixture.write("empty", "\n")
        let big = try fixture.write("big", String(repeating: "x", count: 65 << 10))
        let binary = fixture.base.appendingPathComponent("binary")
        try Data([0xFF, 0xFE, 0x00]).write(to: binary)
        #expect(
            fixture.errors(bearer(#""tokenFile": "empty""#)) == ["upstreams.h.auth.tokenFile: file \(empty) is empty"])
        #expect(
            fixture.errors(bearer(#""tokenFile": "big""#))
                == ["upstreams.h.auth.tokenFile: file \(big) is larger than 65536 bytes"])
        #expect(
            fixture.errors(bearer(#""tokenFile": "binary""#))
                == ["upstreams.h.auth.tokenFile: file \(binary.path) is not UTF-8 text"])
    }

    @Test func neverPrintsSecretValues() throws {
        try fixture.write("key", "not-a-key-SECRETVALUE\n")
        let errors = fixture.errors(
            minimalConfig(
                #""cache": {"encryptionKeyFile": "key"}, "server": {"adminTokenEnv": "A", "adminTokenFile": "key"}"#),
            environment: ["A": "SECRETVALUE"])
        #expect(
            errors == [
                "server: give either adminTokenEnv or adminTokenFile, not both",
                "cache.encryptionKeyFile: expected a 32-byte key as 64 hex digits or base64",
            ])
        #expect(!errors.joined().contains("SECRETVALUE"))
        #expect(String(describing: Secret("SECRETVALUE")) == "<redacted>")
    }

    @Test(arguments: [
        (String(repeating: "0f", count: 32), [UInt8](repeating: 0x0F, count: 32)),
        (String(repeating: "AB", count: 32), [UInt8](repeating: 0xAB, count: 32)),
        (Data(0..<32).base64EncodedString(), [UInt8](0..<32)),
        (Data(repeating: 0xFF, count: 32).base64EncodedString(), [UInt8](repeating: 0xFF, count: 32)),
    ])
    func decodesEncryptionKeys(text: String, bytes: [UInt8]) throws {
        let config = try fixture.parse(minimalConfig(#""cache": {"encryptionKeyEnv": "K"}"#), environment: ["K": text])
        #expect(config.cache.encryptionKeyBytes == bytes)
        #expect(config.cache.encryptionKey?.value.count == 64)
    }

    @Test(arguments: [
        String(repeating: "0f", count: 31), String(repeating: "0g", count: 32), String(repeating: "0f", count: 33),
        Data(0..<31).base64EncodedString(), Data(0..<33).base64EncodedString(), "not base64 at all",
    ])
    func rejectsBadEncryptionKeys(text: String) {
        #expect(
            fixture.errors(minimalConfig(#""cache": {"encryptionKeyEnv": "K"}"#), environment: ["K": text])
                == ["cache.encryptionKeyEnv: expected a 32-byte key as 64 hex digits or base64"])
    }

    @Test func readsRotationAndCipherSettings() throws {
        try fixture.write("old1", String(repeating: "0a", count: 32) + "\n")
        try fixture.write("old2", Data(repeating: 0x0B, count: 32).base64EncodedString())
        let config = try fixture.parse(
            minimalConfig(
                #""cache": {"encryptionKeyEnv": "K", "previousKeyFiles": ["old1", "old2"], "cipher": "chacha20-poly1305", "decryptedMemory": "8MiB"}"#
            ), environment: ["K": String(repeating: "0f", count: 32)])
        #expect(
            config.cache.previousEncryptionKeyBytes == [
                [UInt8](repeating: 0x0A, count: 32), [UInt8](repeating: 0x0B, count: 32),
            ])
        #expect(config.cache.cipher == "chacha20-poly1305" && config.cache.decryptedMemory == 8 << 20)
        let auto = try fixture.parse(
            minimalConfig(#""cache": {"encryptionKeyEnv": "K", "cipher": "auto"}"#),
            environment: ["K": String(repeating: "0f", count: 32)])
        #expect(auto.cache.cipher == nil && auto.cache.decryptedMemory == 64 << 20)
    }

    @Test func refusesBadRotationAndCipherSettings() throws {
        try fixture.write("bad", "SECRETVALUE")
        let key = ["K": String(repeating: "0f", count: 32)]
        #expect(
            fixture.errors(
                minimalConfig(#""cache": {"encryptionKeyEnv": "K", "previousKeyFiles": ["bad", 3, "missing"]}"#),
                environment: key)
                == [
                    "cache.previousKeyFiles[0]: expected a 32-byte key as 64 hex digits or base64",
                    "cache.previousKeyFiles[1]: expected a key file path",
                    "cache.previousKeyFiles[2]: file \(fixture.base.appendingPathComponent("missing").path) does not exist",
                ])
        #expect(
            fixture.errors(
                minimalConfig(#""cache": {"encryptionKeyEnv": "K", "previousKeyFiles": "bad"}"#), environment: key)
                == ["cache.previousKeyFiles: expected an array of key file paths"])
        #expect(
            fixture.errors(minimalConfig(#""cache": {"encryptionKeyEnv": "K", "cipher": "rot13"}"#), environment: key)
                == ["cache.cipher: expected auto, aes-256-gcm or chacha20-poly1305"])
        #expect(
            fixture.errors(
                minimalConfig(#""cache": {"encryptionKeyEnv": "K", "decryptedMemory": "64KiB"}"#), environment: key)
                == ["cache.decryptedMemory: must be at least 1MiB"])
        #expect(
            fixture.errors(minimalConfig(#""cache": {"cipher": "aes-256-gcm"}"#))
                == ["cache.cipher: needs encryptionKeyEnv or encryptionKeyFile"])
    }

    @Test func readsSigningKeys() throws {
        let long = String(repeating: "9", count: 40)
        let environment = ["K1": long, "K2": long + "x", "TINY": "short"]
        let config = try fixture.parse(
            #"{"upstreams": {"l": {"kind": "directory", "root": "media", "access": "signed"}}, "signing": {"currentKey": "k2", "keys": {"k1": {"secretEnv": "K1"}, "k2": {"secretEnv": "K2"}}, "maxTTL": "2h", "defaultTTL": "10m"}}"#,
            environment: environment)
        #expect(config.upstreams["l"]?.access == .signed)
        #expect(config.signing?.currentKey == "k2" && config.signing?.keys["k1"]?.value == long)
        #expect(config.signing?.maxTTL == .seconds(7_200) && config.signing?.defaultTTL == .seconds(600))
        let errors = fixture.errors(
            minimalConfig(
                #""signing": {"currentKey": "k3", "keys": {"k1": {"secretEnv": "TINY"}, "k2": {"secretEnv": "K2"}}, "maxTTL": "1m", "defaultTTL": "1h"}"#
            ),
            environment: environment)
        #expect(
            errors == [
                "signing.keys.k1: the secret must be at least 32 bytes (e.g. openssl rand -hex 32)",
                "signing.currentKey: names no key in keys", "signing.defaultTTL: is longer than maxTTL",
            ])
        #expect(!errors.joined().contains("short"))
    }
}
