import Foundation

/// A throwaway certificate authority made with `openssl` at run time (nothing secret is checked in), and the server
/// certificates it signs for `127.0.0.1` and `localhost`.
public struct TestCertificates: Sendable {
    /// A server certificate and its key (mode 600).
    public struct Server: Sendable {
        /// The certificate (PEM).
        public let certificatePath: String
        /// Its private key (PEM, mode 600).
        public let keyPath: String
        /// SHA-256 of the certificate, lowercase hex without colons.
        public let fingerprint: String
    }

    /// Holds every file.
    public let folder: TemporaryDirectory
    /// The CA certificate clients trust (`curl --cacert`).
    public let authorityPath: String

    /// Makes a P-256 CA.
    public static func make() async throws -> TestCertificates {
        let folder = try TemporaryDirectory()
        try await openssl(
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "2",
                "-subj", "/CN=Sluice Test CA", "-keyout", folder.file("ca.key"), "-out", folder.file("ca.pem"),
            ], in: folder)
        return TestCertificates(folder: folder, authorityPath: folder.file("ca.pem"))
    }

    /// Issues `name.pem` and `name.key` with serial `serial`.
    public func issue(_ name: String, serial: Int) async throws -> Server {
        let key = folder.file("\(name).key")
        let request = folder.file("\(name).csr")
        let certificate = folder.file("\(name).pem")
        let extensions = try folder.write(
            "\(name).ext",
            Array(
                "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n"
                    .utf8))
        try await Self.openssl(
            [
                "req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-subj",
                "/CN=localhost", "-keyout", key, "-out", request,
            ], in: folder)
        try await Self.openssl(
            [
                "x509", "-req", "-in", request, "-CA", authorityPath, "-CAkey", folder.file("ca.key"), "-set_serial",
                String(serial), "-days", "2", "-extfile", extensions, "-out", certificate,
            ], in: folder)
        chmod(key, 0o600)
        let printed = try await Self.openssl(
            ["x509", "-in", certificate, "-noout", "-fingerprint", "-sha256"], in: folder)
        guard let fingerprint = Self.fingerprint(in: printed) else { throw PeerError("no fingerprint in \(printed)") }
        return Server(certificatePath: certificate, keyPath: key, fingerprint: fingerprint)
    }

    /// The SHA-256 fingerprint of the certificate a TLS server on `port` presents now (a new connection), or nil
    /// when no handshake completes.
    public func presentedFingerprint(port: Int) async throws -> String? {
        let script =
            "openssl s_client -connect 127.0.0.1:\(port) -servername localhost </dev/null 2>/dev/null"
            + " | openssl x509 -noout -fingerprint -sha256"
        let output = try await Self.run(["/bin/sh", "-c", script], in: folder).output
        return Self.fingerprint(in: output)
    }

    /// What `openssl s_client` with `options` (such as `-tls1_2`) prints for a handshake with a server on `port`.
    public func handshake(port: Int, options: [String]) async throws -> String {
        let script =
            "openssl s_client -connect 127.0.0.1:\(port) -servername localhost -CAfile \(authorityPath) "
            + options.joined(separator: " ") + " </dev/null"
        return try await Self.run(["/bin/sh", "-c", script], in: folder).output
    }

    /// `sha256 Fingerprint=AB:CD:…` as `abcd…`.
    private static func fingerprint(in output: String) -> String? {
        guard let line = output.split(separator: "\n").first(where: { $0.contains("Fingerprint=") }) else { return nil }
        return String(line.split(separator: "=", maxSplits: 1)[1]).replacingOccurrences(of: ":", with: "").lowercased()
    }

    @discardableResult
    private static func openssl(_ arguments: [String], in folder: TemporaryDirectory) async throws -> String {
        let (status, output) = try await run(["/usr/bin/openssl"] + arguments, in: folder)
        guard status == .exited(0) else {
            throw PeerError("openssl \(arguments) failed (\(String(describing: status))): \(output)")
        }
        return output
    }

    /// Runs a tool to completion (30 s at most) and returns how it ended and what it printed (stdout and stderr).
    public static func run(
        _ arguments: [String], in folder: TemporaryDirectory
    ) async throws -> (status: ChildExit?, output: String) {
        let path = folder.file("run-\(UUID().uuidString).log")
        let process = try ChildProcess(arguments, logPath: path)
        let status = await process.waitForExit(timeout: .seconds(30))
        process.stop()
        return (status, process.log())
    }
}
