/// Listen address and limits of an ``HTTPServer``.
public struct HTTPServerOptions: Sendable, Equatable {
    /// Numeric IPv4 or IPv6 address to listen on (`0.0.0.0`, `::`, `127.0.0.1`, `[::1]`, or `localhost`).
    /// An IPv6 address listens dual-stack where the address allows it.
    public var host: String
    /// TCP port; 0 asks the kernel for a free port (read it back from ``HTTPServer/port``).
    public var port: Int
    /// Worker threads of libmicrohttpd's epoll thread pool; 0 means one per CPU core.
    public var threads: Int
    /// Maximum number of open client connections (suspended ones included).
    public var maxConnections: Int
    /// Maximum number of open connections from one client IP; 0 means no per-IP limit.
    public var maxConnectionsPerIP: Int
    /// A connection with no network activity for this long is closed (whole seconds, at least 1).
    /// Suspended connections (waiting for the handler or for body bytes) do not time out: see
    /// ``disconnectCheckInterval``.
    public var idleTimeout: Duration
    /// A request head (request line and header fields) must be complete this long after it started: after
    /// the connection was accepted, or after the first data that followed the previous request. Checked by the
    /// sweeper every ``disconnectCheckInterval``, so a late head is closed within both added together.
    public var headerTimeout: Duration
    /// Largest accepted request body; larger bodies are answered with 413.
    public var maxRequestBodyBytes: Int
    /// libmicrohttpd's memory per connection (`MHD_OPTION_CONNECTION_MEMORY_LIMIT`): the request line and header
    /// fields must fit in it, next to the response's header block; a request that does not fit is answered with
    /// 431 or 414. libmicrohttpd zeroes this memory for every request, so it is kept small: 16 KiB holds twice
    /// nginx's default limit for one header line.
    public var connectionMemoryBytes: Int
    /// How often suspended connections are checked for a client that went away (the body source is then
    /// closed with `completed: false` and the handler's task cancelled), and connections waiting for a request
    /// head for a client that went away or a head past ``headerTimeout`` (they are closed).
    public var disconnectCheckInterval: Duration
    /// The header fields the ``HTTPExchange/request`` handed to `onComplete` carries for a request the immediate
    /// handler answered (each by its first value): reading them costs every such answer (a cache hit), so only
    /// those something reads (the access log's `Range`), none when nothing does. Requests that reach the async
    /// handler carry all of theirs.
    public var exchangeHeaderFields: [String]
    /// Speak TLS (1.2 and 1.3) with these credentials; nil serves plain HTTP. ``HTTPServer/reloadTLS(_:)`` replaces
    /// them while running.
    public var tls: TLSCredentials?

    /// Creates options; every parameter has a production default.
    public init(
        host: String = "0.0.0.0", port: Int = 8080, threads: Int = 0, maxConnections: Int = 4096,
        maxConnectionsPerIP: Int = 0, idleTimeout: Duration = .seconds(60), headerTimeout: Duration = .seconds(10),
        maxRequestBodyBytes: Int = 1 << 20,
        connectionMemoryBytes: Int = 16 << 10, disconnectCheckInterval: Duration = .seconds(1),
        exchangeHeaderFields: [String] = [], tls: TLSCredentials? = nil
    ) {
        self.host = host
        self.port = port
        self.threads = threads
        self.maxConnections = maxConnections
        self.maxConnectionsPerIP = maxConnectionsPerIP
        self.idleTimeout = idleTimeout
        self.headerTimeout = headerTimeout
        self.maxRequestBodyBytes = maxRequestBodyBytes
        self.connectionMemoryBytes = connectionMemoryBytes
        self.disconnectCheckInterval = disconnectCheckInterval
        self.exchangeHeaderFields = exchangeHeaderFields
        self.tls = tls
    }
}

extension HTTPServerOptions {
    /// `idleTimeout` in whole seconds, rounded up, at least 1 (libmicrohttpd's unit).
    var idleTimeoutSeconds: UInt32 { Self.wholeSeconds(idleTimeout) }

    /// `duration` in whole seconds, rounded up, at least 1, at most `UInt32.max`.
    static func wholeSeconds(_ duration: Duration) -> UInt32 {
        let (seconds, attoseconds) = duration.components
        return UInt32(clamping: max(1, seconds + (attoseconds > 0 ? 1 : 0)))
    }
}
