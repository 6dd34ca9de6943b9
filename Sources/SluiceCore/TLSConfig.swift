/// A TLS listener's certificate and private key (`server.tls`, `server.adminTls`): PEM files, read at start and
/// again on every reload (SIGHUP), so that a renewed certificate is picked up without a restart.
public struct TLSConfig: Sendable, Equatable {
    /// The server certificate, then any intermediates (absolute path).
    public var certificateFile: String
    /// The unencrypted private key, readable by its owner only (absolute path).
    public var keyFile: String

    /// Creates a configuration.
    public init(certificateFile: String, keyFile: String) {
        self.certificateFile = certificateFile
        self.keyFile = keyFile
    }
}
