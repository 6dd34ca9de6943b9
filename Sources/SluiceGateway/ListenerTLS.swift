import SluiceCore
import SluiceCrypto
import SluiceHTTP

/// A TLS listener's configuration key and files, and the credentials last read from them.
struct ListenerTLS: Sendable {
    /// `server.tls` or `server.adminTls`.
    let key: String
    /// Its files.
    let config: TLSConfig

    /// Credentials read from the files now, with the fingerprint the log shows.
    struct Loaded: Sendable {
        let credentials: TLSCredentials
        /// SHA-256 of the server certificate (DER), lowercase hex: `openssl x509 -fingerprint -sha256` without colons.
        let fingerprint: String
    }

    /// Reads the files and has libmicrohttpd load the pair as it will serve it (the key must match the certificate).
    /// Errors name the key and the file, never key material.
    func load() throws(GatewayError) -> Loaded {
        let contents: TLSConfig.Contents
        switch config.read() {
        case .success(let read): contents = read
        case .failure(let error): throw .tls(key: "\(key).\(error.field)", reason: error.message)
        }
        let credentials = TLSCredentials(certificatePEM: contents.certificatePEM, keyPEM: contents.keyPEM.value)
        do {
            try credentials.validate()
        } catch {
            throw .tls(key: key, reason: "\(config.certificateFile) and \(config.keyFile): \(Self.reason(error))")
        }
        return Loaded(credentials: credentials, fingerprint: SHA256.hexHash(contents.leafCertificate))
    }

    /// The listeners of `server` that speak TLS, and the HTTP server options' credentials for each.
    static func listeners(of server: ServerConfig) -> (main: ListenerTLS?, admin: ListenerTLS?) {
        (
            server.tls.map { ListenerTLS(key: "server.tls", config: $0) },
            server.adminListen == nil ? nil : server.adminTls.map { ListenerTLS(key: "server.adminTls", config: $0) }
        )
    }

    private static func reason(_ error: HTTPServerError) -> String {
        if case .tlsRejected(let reason) = error { return reason }
        return String(describing: error)
    }
}
