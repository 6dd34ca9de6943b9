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
    /// Size of one cached chunk.
    public var chunkSize: Int64 = 1 << 20
    /// How far ahead of each active reader to fetch.
    public var readahead: Int64 = 8 << 20
    /// Content info older than this is checked against the upstream again.
    public var revalidateAfter: Duration = .seconds(60)
    /// 32-byte key that enables chunk encryption at rest.
    public var encryptionKey: Secret?
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

/// Upstream kinds (docs/configuration.md, `upstreams`).
public enum UpstreamKind: String, Sendable, CaseIterable {
    case webdav, http, directory, s3
    case googleDrive = "google-drive"
    case dropbox, onedrive
    case yandexDisk = "yandex-disk"
    case box
}

/// How requests to an upstream are authenticated.
public enum AuthConfig: Sendable, Equatable {
    /// No credentials.
    case none
    /// `Authorization: Basic`, sent pre-emptively.
    case basic(username: String, password: Secret)
    /// HTTP Digest (RFC 7616), answered by libcurl after the server's challenge.
    case digest(username: String, password: Secret)
    /// `Authorization: Bearer <token>`.
    case bearer(token: Secret)
    /// AWS Signature Version 4 for S3, signed by libcurl.
    case sigV4(SigV4Credentials)
    /// OAuth2 access tokens, renewed with the refresh token kept in a token file.
    case oauth2(OAuth2Config)

    /// The `type` name as written in the config.
    public var typeName: String {
        switch self {
        case .none: "none"
        case .basic: "basic"
        case .digest: "digest"
        case .bearer: "bearer"
        case .sigV4: "sigv4"
        case .oauth2: "oauth2"
        }
    }
}

/// An OAuth2 client and where its tokens live (`auth` with `"type": "oauth2"`).
public struct OAuth2Config: Sendable, Equatable {
    /// The token file (absolute): `{"access_token", "refresh_token", "token_type", "expiry"}`, rewritten atomically.
    public var tokenFile: String
    /// The client (application) ID registered with the provider.
    public var clientID: Secret
    /// The client secret; public clients have none.
    public var clientSecret: Secret?
    /// The token endpoint, when not the kind's own (national clouds, proxies, emulators).
    public var tokenURL: String?
    /// Scopes asked for when signing in and refreshing; the kind's own when nil.
    public var scope: String?

    /// Creates an OAuth2 configuration.
    public init(
        tokenFile: String, clientID: Secret, clientSecret: Secret? = nil, tokenURL: String? = nil, scope: String? = nil
    ) {
        self.tokenFile = tokenFile
        self.clientID = clientID
        self.clientSecret = clientSecret
        self.tokenURL = tokenURL
        self.scope = scope
    }
}

/// Timeouts for upstream requests (`upstreams.NAME.timeouts`).
public struct UpstreamTimeouts: Sendable, Equatable {
    /// TCP + TLS connect.
    public var connect: Duration = .seconds(10)
    /// From request sent to the first response byte.
    public var firstByte: Duration = .seconds(30)
    /// Abort a transfer slower than `lowSpeedBytesPerSecond` for this long.
    public var lowSpeedTime: Duration = .seconds(30)
    /// See `lowSpeedTime`.
    public var lowSpeedBytesPerSecond: Int = 1

    /// Defaults.
    public init() {}
}

/// One configured upstream.
public struct UpstreamConfig: Sendable {
    /// Its name: the asset ID scheme and the `/stream/{name}/` segment.
    public var name: String
    /// What kind of server it is.
    public var kind: UpstreamKind
    /// Base URL for `webdav` and `http` (ends with `/`).
    public var baseURL: String?
    /// Root folder for `directory` (absolute, symlinks resolved).
    public var root: String?
    /// Endpoint, bucket, region and addressing style for `s3`.
    public var s3: S3Location?
    /// Credentials.
    public var auth: AuthConfig = .none
    /// Static headers added to every request (values may be secrets).
    public var headers: [String: Secret] = [:]
    /// Timeouts.
    public var timeouts = UpstreamTimeouts()
    /// Origins (`https://cdn.example.com`) that redirects may lead to besides the base URL's own, for `webdav` and
    /// `http`; a redirect anywhere else ends the request.
    public var redirectHosts: [String] = []
    /// Requests to the upstream in flight at once, at most; more wait for a slot.
    public var maxConcurrentRequests = 16
    /// A cloud kind's API, when not the provider's public one (`onedrive`: Microsoft Graph's `v1.0`; ends with `/`).
    public var apiBaseURL: String?
    /// The origin a cloud kind's downloads are redirected to, when not the provider's own content hosts.
    public var contentBaseURL: String?

    /// Creates an upstream of `kind` named `name`.
    public init(name: String, kind: UpstreamKind) {
        self.name = name
        self.kind = kind
    }
}
