/// The whole gateway configuration (docs/configuration.md), validated and with every secret resolved.
public struct SluiceConfig: Sendable {
    /// Listener, limits and admin token.
    public var server: ServerConfig
    /// Disk cache settings.
    public var cache: CacheConfig
    /// Upstreams by name (the asset ID scheme).
    public var upstreams: [String: UpstreamConfig]
    /// Log output.
    public var logging: LoggingConfig
    /// Keys of signed stream URLs; nil when no upstream is signed.
    public var signing: SigningConfig?
    /// What loaded but should be changed (a secret file others may read), for the operator.
    public var warnings: [ConfigError] = []

    /// Creates a configuration.
    public init(server: ServerConfig, cache: CacheConfig, upstreams: [String: UpstreamConfig], logging: LoggingConfig) {
        self.server = server
        self.cache = cache
        self.upstreams = upstreams
        self.logging = logging
    }
}

/// A host and TCP port to listen on.
public struct ListenAddress: Hashable, Sendable, CustomStringConvertible {
    /// IPv4 or IPv6 literal, or `0.0.0.0`.
    public var host: String
    /// TCP port; 0 picks a free one.
    public var port: Int

    /// Creates an address.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port`, IPv6 hosts in brackets.
    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

/// The HTTP front: where it listens and how it protects itself.
public struct ServerConfig: Sendable {
    /// Public listener (`server.listen`, default `0.0.0.0:8080`).
    public var listen: ListenAddress = ListenAddress(host: "0.0.0.0", port: 8080)
    /// Optional separate listener for `/admin` and `/metrics`.
    public var adminListen: ListenAddress?
    /// Browser pages on other origins allowed to read streams; nil allows none.
    public var cors: CORSConfig?
    /// TLS for the public listener (and for admin calls when there is no `adminListen`); nil serves plain HTTP.
    public var tls: TLSConfig?
    /// TLS for the separate admin listener; nil serves it plain HTTP.
    public var adminTls: TLSConfig?
    /// Bearer token for the admin API; admin calls answer 403 when absent.
    public var adminToken: Secret?
    /// Worker threads of the HTTP server (default: the number of cores).
    public var threads: Int = 0
    /// Most simultaneous connections.
    public var maxConnections: Int = 1024
    /// Most simultaneous connections from one IP address.
    public var maxConnectionsPerIP: Int = 256
    /// A connection idle this long is closed.
    public var idleTimeout: Duration = .seconds(60)
    /// A request head not complete this long after it started is closed (a slow drip resets the idle timeout,
    /// not this one).
    public var headerTimeout: Duration = .seconds(10)
    /// On SIGTERM/SIGINT, in-flight responses get this long to finish.
    public var shutdownGrace: Duration = .seconds(10)
    /// Per-client request rate and new-asset limits.
    public var limits = LimitsConfig()
    /// Proxies (`server.trustedProxies`) whose `X-Forwarded-For` names the client; without any, the field is
    /// ignored and the connection's peer is the client.
    public var trustedProxies: [IPNetwork] = []

    /// Defaults.
    public init() {}
}

/// The disk range cache (`cache` section).
public struct CacheConfig: Sendable {
    /// Directory holding the index and data files.
    public var directory: String = "./.sluice-cache"
    /// Upper bound on allocated disk bytes.
    public var maxSize: Int64 = 10 << 30
    /// Entries not read for this long are removed.
    public var maxAge: Duration = .seconds(90 * 86_400)
    /// Size of one cached chunk: the finest unit fetched and stored. 128 KiB keeps a 64 KiB seek's upstream
    /// bytes under 3× what it reads (README, "Performance").
    public var chunkSize: Int64 = CacheConfig.defaultChunkSize
    /// Whether `chunkSize` was set in the file; if not, an existing cache keeps the chunk size it was written with.
    public var chunkSizeIsSet = false
    /// The chunk size of a new cache when the file sets none.
    public static let defaultChunkSize: Int64 = 128 << 10
    /// The longest follow-on fill of a reader that reads on, and how far a fill may run ahead of its furthest reader.
    public var readahead: Int64 = 8 << 20
    /// Content info older than this is checked against the upstream again.
    public var revalidateAfter: Duration = .seconds(60)
    /// 32-byte key that enables chunk encryption at rest.
    public var encryptionKey: Secret?
    /// Keys a cache may still be sealed under (`previousKeyFiles`): read, never written with, until `rekey`.
    public var previousEncryptionKeys: [Secret] = []
    /// The AEAD new chunks are sealed with (`aes-256-gcm`, `chacha20-poly1305`); nil picks the fastest here.
    public var cipher: String?
    /// Bytes of decrypted segments kept in locked memory for hot hits of an encrypted cache.
    public var decryptedMemory: Int64 = 64 << 20
    /// Lay data files out in huge-page folios: cheaper hits, dearer fills (`CacheOptions.hugePages`).
    public var hugePages = false

    /// Defaults.
    public init() {}
}

/// Log output settings (`logging` section).
public struct LoggingConfig: Sendable {
    /// Line format.
    public enum Format: String, Sendable, CaseIterable { case text, json }
    /// `text` (default) or `json` lines.
    public var format: Format = .text
    /// Lowest level written.
    public var level: LogLevel = .info

    /// Defaults.
    public init() {}
}
