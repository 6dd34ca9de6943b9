import Foundation

extension TLSConfig {
    /// The files' PEM texts, checked for shape: whether GnuTLS accepts them (the key matches the certificate) is the
    /// HTTP server's check.
    public struct Contents: Sendable {
        /// The certificate chain.
        public let certificatePEM: String
        /// The private key.
        public let keyPEM: Secret
        /// The DER bytes of the first certificate (the server's own), for its fingerprint.
        public let leafCertificate: [UInt8]
    }

    /// A file that cannot be used: `field` is `certificateFile` or `keyFile`, `message` describes the file and
    /// never its contents.
    public struct FileError: Error, Sendable, Equatable, CustomStringConvertible {
        /// `certificateFile` or `keyFile`.
        public let field: String
        /// What is wrong with it.
        public let message: String

        /// `field: message`.
        public var description: String { "\(field): \(message)" }
    }

    /// Largest certificate chain read.
    static let maxCertificateSize = 256 << 10

    /// Reads and checks both files. The key file is refused when others may read it, as PostgreSQL refuses its
    /// `ssl_key_file`: at most mode 600, or 640 when root owns it (Debian's `root:ssl-cert` keys, readable by a
    /// service in that group).
    public func read() -> Result<Contents, FileError> {
        let certificate: (text: String, blocks: [PEMBlock])
        switch Self.readPEM(certificateFile, field: "certificateFile", limit: Self.maxCertificateSize) {
        case .success(let read): certificate = read
        case .failure(let error): return .failure(error)
        }
        let certificates = certificate.blocks.filter { $0.label == "CERTIFICATE" }
        guard let leaf = certificates.first else {
            return .failure(
                FileError(field: "certificateFile", message: "file \(certificateFile) holds no PEM CERTIFICATE"))
        }
        guard !certificate.blocks.contains(where: { $0.label.hasSuffix("PRIVATE KEY") }) else {
            return .failure(
                FileError(
                    field: "certificateFile",
                    message: "file \(certificateFile) also holds a private key: give it in keyFile only, mode 600"))
        }
        if let problem = Self.accessProblem(keyFile) {
            return .failure(FileError(field: "keyFile", message: "file \(keyFile) \(problem)"))
        }
        let key: (text: String, blocks: [PEMBlock])
        switch Self.readPEM(keyFile, field: "keyFile", limit: SecretFile.maxSecretSize) {
        case .success(let read): key = read
        case .failure(let error): return .failure(error)
        }
        let keys = key.blocks.filter { $0.label.hasSuffix("PRIVATE KEY") }
        guard keys.count == 1, !key.text.contains("Proc-Type: 4,ENCRYPTED"), keys[0].label != "ENCRYPTED PRIVATE KEY"
        else {
            let problem =
                keys.count > 1
                ? "holds \(keys.count) private keys (give one)"
                : keys.isEmpty ? "holds no PEM PRIVATE KEY" : "holds an encrypted key (give it without a passphrase)"
            return .failure(FileError(field: "keyFile", message: "file \(keyFile) \(problem)"))
        }
        return .success(
            Contents(certificatePEM: certificate.text, keyPEM: Secret(key.text), leafCertificate: leaf.bytes))
    }

    /// The file's text and PEM blocks, or why it has none.
    private static func readPEM(
        _ path: String, field: String, limit: Int
    ) -> Result<(text: String, blocks: [PEMBlock]), FileError> {
        let failure = { (problem: String) in
            Result<(text: String, blocks: [PEMBlock]), FileError>.failure(
                FileError(field: field, message: "file \(path) \(problem)"))
        }
        let data: Data
        switch SecretFile.read(path, limit: limit) {
        case .success(let read): data = read
        case .failure(let problem): return failure(problem.description)
        }
        guard let text = String(data: data, encoding: .utf8), !text.contains("\0") else {
            return failure("is not PEM text")
        }
        guard let blocks = PEMBlock.parse(text) else {
            return failure("is not well-formed PEM (a block's base64 or END line is broken)")
        }
        guard !blocks.isEmpty else { return failure("holds no PEM block (-----BEGIN …-----)") }
        return .success((text, blocks))
    }

    /// Why the key file's permissions are unsafe, or nil. `stat` follows symbolic links (certbot's `live/` holds
    /// links into `archive/`), so the mode checked is the key's own.
    private static func accessProblem(_ path: String) -> String? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }  // reading it reports what is wrong
        let mode = status.st_mode & 0o777
        let allowed: mode_t = status.st_uid == 0 ? 0o740 : 0o700
        guard mode & ~allowed != 0 else { return nil }
        return "may be read or changed by others (mode \(String(mode, radix: 8))): chmod 600 it, or 640 owned by root"
    }
}
