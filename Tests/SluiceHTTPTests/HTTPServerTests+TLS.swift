import Foundation
import SluiceTestSupport
import Testing

@testable import SluiceHTTP

/// TLS listeners, checked with real clients (`curl --cacert`, `openssl s_client`) against a throwaway CA.
@Suite struct HTTPServerTLSTests {
    private static func credentials(_ server: TestCertificates.Server) throws -> TLSCredentials {
        TLSCredentials(
            certificatePEM: try String(contentsOfFile: server.certificatePath, encoding: .utf8),
            keyPEM: try String(contentsOfFile: server.keyPath, encoding: .utf8))
    }

    /// `curl --cacert` fetching `https://127.0.0.1:PORT/` into `output`; the child process, started now.
    private static func curl(port: Int, authority: String, output: String, in folder: TemporaryDirectory) throws
        -> ChildProcess
    {
        try ChildProcess(
            [
                "/usr/bin/curl", "-sS", "--fail", "--cacert", authority, "-o", output,
                "https://127.0.0.1:\(port)/",
            ], logPath: folder.file("curl-\(UUID().uuidString).log"))
    }

    @Test func reloadKeepsTheStreamInProgressAndNewConnectionsGetTheNewCertificate() async throws {
        let certificates = try await TestCertificates.make()
        let (first, second) = (
            try await certificates.issue("first", serial: 1), try await certificates.issue("second", serial: 2)
        )
        let data = SeededGenerator.bytes(3 << 20, seed: 33)
        let barrier = WakeBarrier()
        let source = ScriptedSource(data: data, mode: .barrier(barrier))
        var options = loopbackOptions()
        options.tls = try Self.credentials(first)
        try await withServer(
            options,
            handler: { _ in HTTPResponse(status: 200, body: .stream(length: Int64(data.count), source: source)) },
            run: { server in
                #expect(try await certificates.presentedFingerprint(port: server.port) == first.fingerprint)
                let output = certificates.folder.file("stream.bin")
                let stream = try Self.curl(
                    port: server.port, authority: certificates.authorityPath, output: output, in: certificates.folder)
                // The stream has begun on the first daemon: its body waits for the barrier.
                #expect(await Poll.until(within: .seconds(30)) { source.reads > 0 })

                try server.reloadTLS(try Self.credentials(second))
                #expect(server.daemonCount == 2)
                #expect(try await certificates.presentedFingerprint(port: server.port) == second.fingerprint)

                barrier.open()
                #expect(await stream.waitForExit(timeout: .seconds(30)) == .exited(0), "\(stream.log())")
                let received = try Data(contentsOf: URL(fileURLWithPath: output))
                #expect(Array(received) == data, "the stream begun before the reload: \(received.count) bytes")
                // The replaced daemon is stopped once its last connection is gone.
                #expect(await Poll.until(within: .seconds(10)) { server.daemonCount == 1 })
                #expect(try await certificates.presentedFingerprint(port: server.port) == second.fingerprint)
            })
    }

    @Test func aRefusedPairOnReloadKeepsTheServedOne() async throws {
        let certificates = try await TestCertificates.make()
        let (first, second) = (
            try await certificates.issue("first", serial: 1), try await certificates.issue("second", serial: 2)
        )
        var options = loopbackOptions()
        options.tls = try Self.credentials(first)
        try await withServer(
            options, handler: { _ in HTTPResponse(status: 204) },
            run: { server in
                let mismatched = TLSCredentials(
                    certificatePEM: try String(contentsOfFile: second.certificatePath, encoding: .utf8),
                    keyPEM: try String(contentsOfFile: first.keyPath, encoding: .utf8))
                #expect(
                    throws: HTTPServerError.tlsRejected(
                        "GnuTLS failed to setup x509 certificate/key: The certificate and the given key do not match.")
                ) {
                    try server.reloadTLS(mismatched)
                }
                #expect(server.daemonCount == 1)
                #expect(try await certificates.presentedFingerprint(port: server.port) == first.fingerprint)
            })
    }

    @Test func plainHTTPToTheTLSPortIsClosedAndTLSClientsAreStillServed() async throws {
        let certificates = try await TestCertificates.make()
        let first = try await certificates.issue("first", serial: 1)
        let body = SeededGenerator.bytes(100_000, seed: 3)
        let log = ExchangeLog()
        var options = loopbackOptions()
        options.tls = try Self.credentials(first)
        try await withServer(
            options, log: log, handler: { _ in HTTPResponse(status: 200, body: .bytes(body)) },
            run: { server in
                let closed = try await onOwnThread {
                    let connection = try RawHTTPConnection(port: server.port)
                    connection.setReceiveTimeout(milliseconds: 10_000)
                    try connection.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n")
                    return connection.waitForClose()
                }
                #expect(closed, "the TLS port kept a plain-HTTP connection open")
                #expect(log.all.isEmpty, "a plain-HTTP request reached the handler")

                let output = certificates.folder.file("after.bin")
                let fetch = try Self.curl(
                    port: server.port, authority: certificates.authorityPath, output: output, in: certificates.folder)
                #expect(await fetch.waitForExit(timeout: .seconds(30)) == .exited(0), "\(fetch.log())")
                #expect(Array(try Data(contentsOf: URL(fileURLWithPath: output))) == body)
            })
    }

    /// A client that leaves politely sends close_notify before its FIN: bytes a peek alone would take for a next
    /// request, so the sweeper must notice the FIN itself.
    @Test func aTLSClientLeavingPolitelyDuringASuspendedStreamIsNoticed() async throws {
        let certificates = try await TestCertificates.make()
        let first = try await certificates.issue("first", serial: 1)
        let source = ScriptedSource(data: SeededGenerator.bytes(1000), mode: .never)
        let log = ExchangeLog()
        var options = loopbackOptions()
        options.tls = try Self.credentials(first)
        try await withServer(
            options, log: log,
            handler: { _ in HTTPResponse(status: 200, body: .stream(length: 1000, source: source)) },
            run: { server in
                // s_client sends the request, and on the end of its input close_notify and FIN: three seconds later, so
                // that a loaded machine has finished the handshake and begun the stream by then.
                let script =
                    "(printf 'GET / HTTP/1.1\\r\\nHost: t\\r\\n\\r\\n'; sleep 3) | openssl s_client -no_ign_eof"
                    + " -connect 127.0.0.1:\(server.port) -CAfile \(certificates.authorityPath)"
                let client = try await TestCertificates.run(["/bin/sh", "-c", script], in: certificates.folder)
                #expect(client.status == .exited(0), "\(client.output)")
                #expect(source.reads > 0, "the stream never began")
                // The sweeper runs every 200 ms; the 30 s idle timeout does not apply to a suspended connection.
                #expect(await Poll.until(within: .seconds(5)) { source.closes == [false] }, "closes: \(source.closes)")
            })
        #expect(log.all.map(\.completed) == [false])
    }

    @Test func speaksTLS12And13Only() async throws {
        let certificates = try await TestCertificates.make()
        let first = try await certificates.issue("first", serial: 1)
        var options = loopbackOptions()
        options.tls = try Self.credentials(first)
        try await withServer(
            options, handler: { _ in HTTPResponse(status: 204) },
            run: { server in
                for (flag, version) in [("-tls1_3", "TLSv1.3"), ("-tls1_2", "TLSv1.2")] {
                    let output = try await certificates.handshake(port: server.port, options: [flag])
                    #expect(output.contains("New, \(version), Cipher is"), "\(output)")
                    #expect(output.contains("Verify return code: 0 (ok)"), "\(output)")
                }
                // The client would offer them at its lowest security level; the server still refuses.
                for flag in ["-tls1_1", "-tls1"] {
                    let output = try await certificates.handshake(
                        port: server.port, options: [flag, "-cipher", "DEFAULT@SECLEVEL=0"])
                    #expect(output.contains("New, (NONE), Cipher is (NONE)"), "\(flag): \(output)")
                }
            })
    }

    @Test func aPlainServerRefusesTLSReloadAndGarbageIsRejected() async throws {
        try await withServer(
            handler: { _ in HTTPResponse(status: 204) },
            run: { server in
                let garbage = TLSCredentials(certificatePEM: "garbage", keyPEM: "garbage")
                #expect(throws: HTTPServerError.notServingTLS) { try server.reloadTLS(garbage) }
            })
        #expect {
            try TLSCredentials(certificatePEM: "garbage", keyPEM: "garbage").validate()
        } throws: { error in
            guard case .tlsRejected(let reason) = error as? HTTPServerError else { return false }
            return reason.hasPrefix("GnuTLS failed to setup x509 certificate/key:")
        }
    }
}
