import Foundation
import SluiceCore
import SluiceTestSupport
import Testing

/// The gateway process behind `server.tls`, checked with real clients (curl, ffprobe, openssl s_client) against a
/// throwaway CA made at run time.
@Suite struct TLSTests {
    /// A gateway config serving `upstreams` (JSON members) with TLS from `live.pem` and `live.key` in `certificates`.
    private static func config(upstreams: String, certificates: TestCertificates) -> String {
        """
        {
          "server": { "listen": "127.0.0.1:0", "shutdownGrace": "2s",
                      "tls": { "certificateFile": "\(certificates.folder.file("live.pem"))",
                               "keyFile": "\(certificates.folder.file("live.key"))" } },
          "cache": { "directory": "./cache" },
          "upstreams": { \(upstreams) }
        }
        """
    }

    /// Makes `server` the pair the gateway's files hold, each file replaced by a rename (as certbot does).
    private static func install(_ server: TestCertificates.Server, in certificates: TestCertificates) throws {
        try install(certificate: server.certificatePath, key: server.keyPath, in: certificates)
    }

    /// Makes the gateway's files `name.pem` and `name.key` hold `certificate` and `key`, each replaced by a rename.
    private static func install(
        certificate: String, key: String, in certificates: TestCertificates, as name: String = "live"
    ) throws {
        for (source, name) in [(certificate, name + ".pem"), (key, name + ".key")] {
            let staged = certificates.folder.file(name + ".new")
            try? FileManager.default.removeItem(atPath: staged)
            try FileManager.default.copyItem(atPath: source, toPath: staged)
            chmod(staged, 0o600)
            guard rename(staged, certificates.folder.file(name)) == 0 else { throw PeerError("rename: \(errno)") }
        }
    }

    /// `curl --cacert` for `https://127.0.0.1:PORT` + `target`, writing the body to `output`.
    private static func curl(
        _ gateway: GatewayProcess, _ target: String, certificates: TestCertificates, output: String,
        extra: [String] = []
    ) throws -> ChildProcess {
        try ChildProcess(
            ["/usr/bin/curl", "-sS", "--fail", "--cacert", certificates.authorityPath, "-o", output] + extra
                + ["https://127.0.0.1:\(gateway.port)\(target)"],
            logPath: certificates.folder.file("curl-\(UUID().uuidString).log"))
    }

    private static func fetch(
        _ gateway: GatewayProcess, _ target: String, certificates: TestCertificates, extra: [String] = []
    ) async throws -> [UInt8] {
        let output = certificates.folder.file("body-\(UUID().uuidString)")
        let curl = try curl(gateway, target, certificates: certificates, output: output, extra: extra)
        let status = await curl.waitForExit(timeout: .seconds(60))
        curl.stop()
        guard status == .exited(0) else {
            throw PeerError("curl \(target) \(extra): \(String(describing: status)) \(curl.log())")
        }
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    @Test func curlAndFfprobeOverHTTPSAreByteExact() async throws {
        let certificates = try await TestCertificates.make()
        try Self.install(try await certificates.issue("first", serial: 1), in: certificates)
        let media = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: media, count: 3 << 20)
        let movie = media.file("clip.mp4")
        let encode = try await TestCertificates.run(
            [
                "/usr/bin/ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i",
                "testsrc=duration=2:size=160x120:rate=10", "-c:v", "mpeg4", movie,
            ], in: media)
        #expect(encode.status == .exited(0), "ffmpeg: \(encode.output)")
        let upstream = #""m": { "kind": "directory", "root": "\#(media.path)" }"#
        try await GatewayProcess.run(configJSON: Self.config(upstreams: upstream, certificates: certificates)) {
            gateway in
            let whole = try await Self.fetch(gateway, "/stream/m/a.bin", certificates: certificates)
            #expect(whole.firstDifference(from: data[...]) == nil && whole.count == data.count, "whole GET over HTTPS")
            let ranged = try await Self.fetch(
                gateway, "/stream/m/a.bin", certificates: certificates, extra: ["-r", "1000000-1999999"])
            #expect(ranged == Array(data[1_000_000..<2_000_000]), "ranged GET over HTTPS: \(ranged.count) bytes")
            let tail = try await Self.fetch(
                gateway, "/stream/m/a.bin", certificates: certificates, extra: ["-r", "-4097"])
            #expect(tail == Array(data.suffix(4097)))

            let probe = try await TestCertificates.run(
                [
                    "/usr/bin/ffprobe", "-v", "error", "-tls_verify", "1", "-ca_file", certificates.authorityPath,
                    "-show_entries", "format=duration", "-of", "default=nw=1:nk=1",
                    "https://127.0.0.1:\(gateway.port)/stream/m/clip.mp4",
                ], in: media)
            #expect(probe.status == .exited(0), "ffprobe: \(probe.output)")
            let duration = Double(probe.output.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            #expect(abs(duration - 2) < 0.5, "ffprobe duration over HTTPS: \(probe.output)")
        }
    }

    @Test func sighupReloadsTheCertificateWhileAStreamRuns() async throws {
        let certificates = try await TestCertificates.make()
        let first = try await certificates.issue("first", serial: 1)
        let second = try await certificates.issue("second", serial: 2)
        try Self.install(first, in: certificates)
        let content = try TemporaryDirectory()
        // 8 s at the slow rate: still in flight across the reload on a loaded machine.
        let data = try await RandomData.file("a.bin", in: content, count: 2 << 20)
        let origin = try await Peer.faultOrigin(root: content.path, options: ["--slow-rate", "262144"])
        let upstream = #""slow": { "kind": "http", "baseURL": "\#(origin.url("slow/"))" }"#
        try await GatewayProcess.run(configJSON: Self.config(upstreams: upstream, certificates: certificates)) {
            gateway in
            #expect(gateway.log().contains("server.tls.sha256=\(first.fingerprint)"), "\(gateway.log())")
            #expect(try await certificates.presentedFingerprint(port: gateway.port) == first.fingerprint)
            let output = certificates.folder.file("stream.bin")
            let stream = try Self.curl(gateway, "/stream/slow/a.bin", certificates: certificates, output: output)
            #expect(
                await Poll.until(within: .seconds(30)) {
                    ((try? FileManager.default.attributesOfItem(atPath: output)[.size] as? Int) ?? 0) > 0
                }, "the stream never began")

            try Self.install(second, in: certificates)
            gateway.process.send(SIGHUP)
            #expect(
                await Poll.until(within: .seconds(30)) {
                    gateway.log().contains("tls certificate reloaded")
                }, "\(gateway.log())")
            #expect(gateway.log().contains("certificate.sha256=\(second.fingerprint)"))
            #expect(try await certificates.presentedFingerprint(port: gateway.port) == second.fingerprint)
            #expect(stream.exitStatus == nil, "the stream ended before the reload was checked: raise its length")

            // A mismatched pair is refused: the error is logged and the second pair stays.
            try Self.install(certificate: first.certificatePath, key: second.keyPath, in: certificates)
            gateway.process.send(SIGHUP)
            #expect(
                await Poll.until(within: .seconds(30)) {
                    gateway.log().contains("tls reload failed, keeping the previous certificate")
                }, "\(gateway.log())")
            #expect(gateway.log().contains("The certificate and the given key do not match"))
            #expect(try await certificates.presentedFingerprint(port: gateway.port) == second.fingerprint)

            #expect(await stream.waitForExit(timeout: .seconds(60)) == .exited(0), "\(stream.log())")
            let received = Array(try Data(contentsOf: URL(fileURLWithPath: output)))
            #expect(
                received.count == data.count && received.firstDifference(from: data[...]) == nil,
                "the stream across the reload: \(received.count) of \(data.count) bytes")
            let key = try String(contentsOfFile: second.keyPath, encoding: .utf8)
            let keyBody = key.split(separator: "\n").dropFirst().first.map(String.init) ?? key
            #expect(!gateway.log().contains(keyBody), "key material in the log")
            #expect(gateway.process.exitStatus == nil)
        }
        withExtendedLifetime(origin) {}
    }

    @Test func theAdminListenerHasItsOwnCertificateAndBothReload() async throws {
        let certificates = try await TestCertificates.make()
        let (first, second) = (
            try await certificates.issue("first", serial: 1), try await certificates.issue("second", serial: 2)
        )
        let (third, fourth) = (
            try await certificates.issue("third", serial: 3), try await certificates.issue("fourth", serial: 4)
        )
        try Self.install(first, in: certificates)
        let adminCertificate = certificates.folder.file("admin.pem")
        let adminKey = certificates.folder.file("admin.key")
        for (source, target) in [(third.certificatePath, adminCertificate), (third.keyPath, adminKey)] {
            try FileManager.default.copyItem(atPath: source, toPath: target)
        }
        let config = Self.config(
            upstreams: #""m": { "kind": "directory", "root": "/tmp" }"#, certificates: certificates
        )
        .replacingOccurrences(
            of: #""shutdownGrace": "2s","#,
            with: #""shutdownGrace": "2s", "adminListen": "127.0.0.1:0", "adminTls": "#
                + #"{ "certificateFile": "\#(adminCertificate)", "keyFile": "\#(adminKey)" },"#)
        try await GatewayProcess.run(configJSON: config) { gateway in
            let line = try #require(gateway.logLines.first { $0.contains("listening") })
            let adminPort = try #require(line.firstMatch(of: /admin=[0-9.]+:([0-9]+)/).flatMap { Int($0.output.1) })
            #expect(line.contains("server.adminTls.sha256=\(third.fingerprint)"), "\(line)")
            #expect(try await certificates.presentedFingerprint(port: gateway.port) == first.fingerprint)
            #expect(try await certificates.presentedFingerprint(port: adminPort) == third.fingerprint)
            let ready = try await TestCertificates.run(
                [
                    "/usr/bin/curl", "-sS", "--cacert", certificates.authorityPath, "-o", "/dev/null", "-w",
                    "%{http_code}", "https://127.0.0.1:\(adminPort)/readyz",
                ], in: certificates.folder)
            #expect(ready.output == "200", "\(ready.output)")

            try Self.install(second, in: certificates)
            try Self.install(certificate: fourth.certificatePath, key: fourth.keyPath, in: certificates, as: "admin")
            gateway.process.send(SIGHUP)
            #expect(
                await Poll.until(within: .seconds(30)) {
                    gateway.log().components(separatedBy: "tls certificate reloaded").count == 3
                }, "\(gateway.log())")
            #expect(try await certificates.presentedFingerprint(port: gateway.port) == second.fingerprint)
            #expect(try await certificates.presentedFingerprint(port: adminPort) == fourth.fingerprint)
        }
    }

    @Test func plainHTTPToTheTLSPortFailsCleanly() async throws {
        let certificates = try await TestCertificates.make()
        try Self.install(try await certificates.issue("first", serial: 1), in: certificates)
        let media = try TemporaryDirectory()
        let data = try await RandomData.file("a.bin", in: media, count: 200_000)
        let upstream = #""m": { "kind": "directory", "root": "\#(media.path)" }"#
        try await GatewayProcess.run(configJSON: Self.config(upstreams: upstream, certificates: certificates)) {
            gateway in
            let port = gateway.port
            let answer = try await onOwnThread { () throws -> [UInt8] in
                let descriptor = try RawHTTP.connect(port: port, timeoutSeconds: 10)
                defer { close(descriptor) }
                try RawHTTP.send(Array("GET /stream/m/a.bin HTTP/1.1\r\nHost: x\r\n\r\n".utf8), to: descriptor)
                var received: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                while true {
                    let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                    if count == 0 { return received }
                    if count < 0 {
                        guard errno == ECONNRESET else { throw PeerError("the connection stayed open: \(errno)") }
                        return received
                    }
                    received += chunk[..<count]
                }
            }
            #expect(!answer.starts(with: Array("HTTP/".utf8)), "a plain-HTTP answer on the TLS port")
            #expect(gateway.process.exitStatus == nil, "\(gateway.log())")
            #expect(try await Self.fetch(gateway, "/stream/m/a.bin", certificates: certificates) == data)
        }
    }

    @Test func checkConfigNamesABadPairWithoutShowingTheKey() async throws {
        let certificates = try await TestCertificates.make()
        let first = try await certificates.issue("first", serial: 1)
        let second = try await certificates.issue("second", serial: 2)
        try Self.install(certificate: first.certificatePath, key: second.keyPath, in: certificates)
        let configPath = try certificates.folder.write(
            "sluice.json",
            Array(
                Self.config(upstreams: #""m": { "kind": "directory", "root": "/tmp" }"#, certificates: certificates)
                    .utf8))
        let check = try await TestCertificates.run(
            [try Repository.sluiceExecutable(), "check-config", configPath], in: certificates.folder)
        #expect(check.status == .exited(78), "\(check.output)")
        #expect(
            check.output.contains(
                "server.tls: \(certificates.folder.file("live.pem")) and \(certificates.folder.file("live.key")): "
                    + "GnuTLS failed to setup x509 certificate/key: The certificate and the given key do not match."),
            "\(check.output)")
        let key = try String(contentsOfFile: second.keyPath, encoding: .utf8)
        for line in key.split(separator: "\n") where !line.hasPrefix("-----") {
            #expect(!check.output.contains(line), "key material in check-config's output")
        }

        try Self.install(first, in: certificates)
        let good = try await TestCertificates.run(
            [try Repository.sluiceExecutable(), "check-config", configPath], in: certificates.folder)
        #expect(good.status == .exited(0), "\(good.output)")
    }
}
