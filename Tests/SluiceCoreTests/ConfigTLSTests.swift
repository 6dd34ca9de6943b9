import Foundation
import SluiceCore
import Testing

/// `server.tls` and `server.adminTls`: the files are read and checked at load, and every problem names the key and
/// the file, never what the file holds. (Whether GnuTLS accepts a pair is the HTTP server's check, with real
/// certificates: HTTPServerTLSTests, TLSTests.)
struct ConfigTLSTests {
    let fixture: ConfigFixture
    /// A PEM body no message may show.
    let body = Data((0..<300).map { _ in UInt8.random(in: 0...255) }).base64EncodedString(
        options: .lineLength64Characters)

    init() throws { fixture = try ConfigFixture() }

    private func pem(_ label: String, headers: String = "") -> String {
        "-----BEGIN \(label)-----\n\(headers)\(body)\n-----END \(label)-----\n"
    }

    /// Writes `cert.pem` and `key.pem` (mode `keyMode`) and returns the errors of a config using them.
    private func errors(certificate: String, key: String, keyMode: Int = 0o600, tls: String? = nil) throws -> [String] {
        try fixture.write("cert.pem", certificate)
        let keyPath = try fixture.write("key.pem", key)
        chmod(keyPath, mode_t(keyMode))
        let object = tls ?? #"{"certificateFile": "cert.pem", "keyFile": "key.pem"}"#
        return fixture.errors(minimalConfig(#""server": {"tls": \#(object)}"#))
    }

    @Test func readsBothFilesRelativeToTheConfig() throws {
        try fixture.write("cert.pem", "subject=CN = localhost\n" + pem("CERTIFICATE") + pem("CERTIFICATE"))
        let keyPath = try fixture.write("key.pem", pem("EC PRIVATE KEY"))
        chmod(keyPath, 0o600)
        let config = try fixture.parse(
            minimalConfig(#""server": {"tls": {"certificateFile": "cert.pem", "keyFile": "./key.pem"}}"#))
        let base = fixture.base.standardizedFileURL.path
        #expect(config.server.tls == TLSConfig(certificateFile: base + "/cert.pem", keyFile: base + "/key.pem"))
        #expect(config.server.adminTls == nil)
        #expect(try fixture.parse(minimalConfig()).server.tls == nil, "plain HTTP is the default")
    }

    @Test func refusesBadCertificateFiles() throws {
        let key = pem("PRIVATE KEY")
        let path = fixture.base.standardizedFileURL.path + "/cert.pem"
        let cases: [(String, String)] = [
            ("hello\n", "server.tls.certificateFile: file \(path) holds no PEM block (-----BEGIN …-----)"),
            (
                "-----BEGIN CERTIFICATE-----\n!!!!\n-----END CERTIFICATE-----\n",
                "server.tls.certificateFile: file \(path) is not well-formed PEM (a block's base64 or END line is broken)"
            ),
            (
                "-----BEGIN CERTIFICATE-----\n\(body)\n",
                "server.tls.certificateFile: file \(path) is not well-formed PEM (a block's base64 or END line is broken)"
            ),
            (pem("PUBLIC KEY"), "server.tls.certificateFile: file \(path) holds no PEM CERTIFICATE"),
            (
                pem("CERTIFICATE") + key,
                "server.tls.certificateFile: file \(path) also holds a private key: give it in keyFile only, mode 600"
            ),
            ("", "server.tls.certificateFile: file \(path) holds no PEM block (-----BEGIN …-----)"),
        ]
        for (certificate, expected) in cases {
            let errors = try errors(certificate: certificate, key: key)
            #expect(errors == [expected], "\(certificate.prefix(40))")
            #expect(!errors.joined().contains(body.prefix(20)))
        }
    }

    @Test func refusesBadKeyFiles() throws {
        let certificate = pem("CERTIFICATE")
        let path = fixture.base.standardizedFileURL.path + "/key.pem"
        let cases: [(String, Int, String)] = [
            (pem("PRIVATE KEY"), 0o660, "file \(path) \(Self.exposed)(mode 660)\(Self.remedy)"),
            (pem("PRIVATE KEY"), 0o604, "file \(path) \(Self.exposed)(mode 604)\(Self.remedy)"),
            (pem("PRIVATE KEY"), 0o644, "file \(path) \(Self.exposed)(mode 644)\(Self.remedy)"),
            ("garbage", 0o600, "file \(path) holds no PEM block (-----BEGIN …-----)"),
            (certificate, 0o600, "file \(path) holds no PEM PRIVATE KEY"),
            (pem("ENCRYPTED PRIVATE KEY"), 0o600, "file \(path) holds an encrypted key (give it without a passphrase)"),
            (
                pem("RSA PRIVATE KEY", headers: "Proc-Type: 4,ENCRYPTED\nDEK-Info: AES-128-CBC,00FF\n\n"), 0o400,
                "file \(path) holds an encrypted key (give it without a passphrase)"
            ),
            (pem("PRIVATE KEY") + pem("PRIVATE KEY"), 0o600, "file \(path) holds 2 private keys (give one)"),
        ]
        for (key, mode, expected) in cases {
            let errors = try errors(certificate: certificate, key: key, keyMode: mode)
            #expect(errors == ["server.tls.keyFile: " + expected], "\(key.prefix(40)) mode \(String(mode, radix: 8))")
            #expect(!errors.joined().contains(body.prefix(20)))
        }
    }

    static let exposed = "may be read or changed by others "
    static let remedy = ": chmod 600 it, or 640 owned by root"

    /// Group read is allowed for a key root owns (`root:ssl-cert 0640`), not for one another user owns. Only root
    /// can make files of both kinds.
    @Test(.enabled(if: getuid() == 0)) func groupReadNeedsRootAsOwner() throws {
        let path = fixture.base.standardizedFileURL.path + "/key.pem"
        #expect(try errors(certificate: pem("CERTIFICATE"), key: pem("PRIVATE KEY"), keyMode: 0o640).isEmpty)
        #expect(chown(path, 65_534, 65_534) == 0)
        #expect(
            fixture.errors(
                minimalConfig(#""server": {"tls": {"certificateFile": "cert.pem", "keyFile": "key.pem"}}"#))
                == ["server.tls.keyFile: file \(path) \(Self.exposed)(mode 640)\(Self.remedy)"])
        chmod(path, 0o600)
        #expect(
            fixture.errors(
                minimalConfig(#""server": {"tls": {"certificateFile": "cert.pem", "keyFile": "key.pem"}}"#)
            ).isEmpty)
    }

    /// Root reads any file, so this runs only for another user.
    @Test(.enabled(if: getuid() != 0)) func reportsUnreadableFiles() throws {
        let path = fixture.base.standardizedFileURL.path + "/cert.pem"
        try fixture.write("cert.pem", pem("CERTIFICATE"))
        chmod(path, 0)
        chmod(try fixture.write("key.pem", pem("PRIVATE KEY")), 0o600)
        #expect(
            fixture.errors(
                minimalConfig(#""server": {"tls": {"certificateFile": "cert.pem", "keyFile": "key.pem"}}"#))
                == ["server.tls.certificateFile: file \(path) cannot be read"])
    }

    @Test func reportsMissingFilesAndKeys() throws {
        let base = fixture.base.standardizedFileURL.path
        let certificate = pem("CERTIFICATE")
        let key = pem("PRIVATE KEY")
        let cases: [(String, [String])] = [
            (
                #"{"certificateFile": "nope.pem", "keyFile": "key.pem"}"#,
                ["server.tls.certificateFile: file \(base)/nope.pem does not exist"]
            ),
            (
                #"{"certificateFile": "cert.pem", "keyFile": "nope.key"}"#,
                ["server.tls.keyFile: file \(base)/nope.key does not exist"]
            ),
            (
                #"{"certificateFile": "media", "keyFile": "key.pem"}"#,
                ["server.tls.certificateFile: file \(base)/media is a directory"]
            ),
            (#"{"certificateFile": "cert.pem"}"#, ["server.tls.keyFile: missing required key"]),
            (
                #"{"certificateFile": "", "keyFile": "key.pem"}"#,
                ["server.tls.certificateFile: expected a file path"]
            ),
            (
                #"{"certificateFile": "cert.pem", "keyFile": "key.pem", "password": "x"}"#,
                ["server.tls.password: unknown key"]
            ),
            (#""cert.pem""#, ["server.tls: expected an object"]),
        ]
        for (tls, expected) in cases {
            #expect(try errors(certificate: certificate, key: key, tls: tls) == expected, "\(tls)")
        }
    }

    @Test func adminTLSNeedsItsOwnListener() throws {
        try fixture.write("cert.pem", pem("CERTIFICATE"))
        chmod(try fixture.write("key.pem", pem("PRIVATE KEY")), 0o600)
        let tls = #"{"certificateFile": "cert.pem", "keyFile": "key.pem"}"#
        #expect(
            fixture.errors(minimalConfig(#""server": {"adminTls": \#(tls)}"#)) == [
                "server.adminTls: needs adminListen (without it, admin calls are served with server.tls)"
            ])
        let config = try fixture.parse(
            minimalConfig(#""server": {"adminListen": "127.0.0.1:9090", "tls": \#(tls), "adminTls": \#(tls)}"#))
        #expect(config.server.adminTls != nil && config.server.tls == config.server.adminTls)
    }
}
