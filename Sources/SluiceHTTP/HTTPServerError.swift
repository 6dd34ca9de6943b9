/// Why an ``HTTPServer`` could not start, or could not take new TLS credentials.
public enum HTTPServerError: Error, Sendable, Equatable {
    /// `host` is not a numeric IPv4/IPv6 address (or `localhost`).
    case invalidAddress(String)
    /// The port is outside 0...65535.
    case invalidPort(Int)
    /// A limit in the options is negative or too large for libmicrohttpd.
    case invalidOption(String)
    /// The address is in use or not available on this host (`errno` from `bind`).
    case bindFailed(host: String, port: Int, errno: Int32)
    /// libmicrohttpd refused to start the daemon for another reason (`errno` as left by it).
    case startFailed(errno: Int32)
    /// ``HTTPServer/start()`` was already called.
    case alreadyStarted
    /// libmicrohttpd (GnuTLS) refused the TLS certificate and key, for the reason given (never key material).
    case tlsRejected(String)
    /// The server is not running, or it does not speak TLS, so there are no credentials to replace.
    case notServingTLS
}
