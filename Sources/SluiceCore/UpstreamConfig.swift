/// Upstream kinds (docs/configuration.md, `upstreams`).
public enum UpstreamKind: String, Sendable, CaseIterable {
    case webdav, http, directory, s3
    case googleDrive = "google-drive"
    case dropbox, onedrive
    case yandexDisk = "yandex-disk"
    case box
}

/// One configured upstream: its name and what it is, with the settings of that kind only.
public struct UpstreamConfig: Sendable {
    /// Its name: the asset ID scheme and the `/stream/{name}/` segment.
    public var name: String
    /// The kind and its settings.
    public var source: UpstreamSource
    /// How streams reach players: through the cache, or redirected to the provider.
    public var delivery = Delivery.proxy
    /// Who may open its stream URLs.
    public var access = UpstreamAccess.public

    /// Creates an upstream named `name`.
    public init(name: String, source: UpstreamSource) {
        self.name = name
        self.source = source
    }

    /// What kind of server it is.
    public var kind: UpstreamKind { source.kind }
}

/// Who may open an upstream's stream URLs (`upstreams.NAME.access`).
public enum UpstreamAccess: String, Sendable, Equatable {
    /// Whoever reaches the listener.
    case `public`
    /// Only URLs signed with a key of the `signing` section, until they expire (docs/api.md, "Signed URLs").
    case signed
}

/// How a stream of an upstream reaches the player (`upstreams.NAME.delivery`).
public enum Delivery: Sendable, Equatable {
    /// Bytes flow through the gateway and its cache.
    case proxy
    /// The stream URL answers `status` (307 or 302) to the provider's own header-free URL for the file: the player
    /// downloads from the provider, and the gateway only hands out links.
    case redirect(status: Int)

    /// Redirect statuses a player follows for GET and HEAD alike (303 would turn a HEAD into a GET).
    public static let redirectStatuses: Set = [302, 307]
}

extension UpstreamKind {
    /// Whether the provider hands out URLs that serve a file to anyone who has them, which redirect delivery needs.
    public var handsOutDownloadLinks: Bool {
        switch self {
        case .s3, .onedrive, .dropbox, .box, .yandexDisk: true
        case .webdav, .http, .directory, .googleDrive: false
        }
    }
}

/// An upstream's kind with that kind's settings.
public enum UpstreamSource: Sendable {
    /// A WebDAV server.
    case webdav(HTTPServerConfig)
    /// A plain HTTP(S) origin.
    case http(HTTPServerConfig)
    /// A local folder.
    case directory(DirectoryConfig)
    /// An S3-compatible object store.
    case s3(S3Config)
    /// A OneDrive or SharePoint drive through Microsoft Graph.
    case onedrive(CloudDriveConfig)
    /// A Dropbox account through the Dropbox API v2.
    case dropbox(DropboxConfig)
    /// A Yandex.Disk through its REST API.
    case yandexDisk(YandexDiskConfig)
    /// A Google Drive (My Drive or a shared drive) through the Drive API v3.
    case googleDrive(GoogleDriveConfig)
    /// A Box account through the Box Content API 2.0.
    case box(BoxConfig)

    /// The kind.
    public var kind: UpstreamKind {
        switch self {
        case .webdav: .webdav
        case .http: .http
        case .directory: .directory
        case .s3: .s3
        case .onedrive: .onedrive
        case .dropbox: .dropbox
        case .yandexDisk: .yandexDisk
        case .googleDrive: .googleDrive
        case .box: .box
        }
    }

    /// The `auth.type` name as written in the config (`none` for a kind without credentials).
    public var authType: String {
        switch self {
        case .webdav(let server), .http(let server): server.auth.typeName
        case .directory: "none"
        case .s3(let store): store.credentials == nil ? "none" : "sigv4"
        case .onedrive, .dropbox, .yandexDisk, .box: "oauth2"
        case .googleDrive(let drive): drive.auth.typeName
        }
    }

    /// The request settings of a kind reached over HTTP; nil for `directory`.
    public var requests: RequestSettings? {
        switch self {
        case .webdav(let server), .http(let server): server.requests
        case .s3(let store): store.requests
        case .onedrive(let drive): drive.requests
        case .dropbox(let dropbox): dropbox.drive.requests
        case .yandexDisk(let disk): disk.drive.requests
        case .box(let box): box.drive.requests
        case .googleDrive(let drive): drive.requests
        case .directory: nil
        }
    }
}

/// What every upstream reached over HTTP takes: timeouts, a cap on requests in flight, and how many ranged
/// requests one fetch is split into.
public struct RequestSettings: Sendable, Equatable {
    /// Timeouts.
    public var timeouts = UpstreamTimeouts()
    /// Requests to the upstream in flight at once, at most; more wait for a slot.
    public var maxConcurrentRequests = 16
    /// Ranged requests one fetch runs at once, for consecutive pieces of its range (1: one request per fetch).
    public var parallelFetches = 1

    /// The values `parallelFetches` may take.
    public static let parallelFetchesRange = 1...16

    /// Defaults.
    public init() {}
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

/// A `webdav` or `http` upstream.
public struct HTTPServerConfig: Sendable {
    /// The base URL (absolute, ends with `/`); asset paths are appended to it.
    public var baseURL: String
    /// Credentials.
    public var auth: AuthConfig = .none
    /// Static headers added to every request (values may be secrets).
    public var headers: [String: Secret] = [:]
    /// Origins (`https://cdn.example.com`) that redirects may lead to besides the base URL's own; a redirect
    /// anywhere else ends the request.
    public var redirectHosts: [String] = []
    /// Timeouts and concurrency.
    public var requests = RequestSettings()

    /// A server at `baseURL` without credentials.
    public init(baseURL: String, auth: AuthConfig = .none) {
        self.baseURL = baseURL
        self.auth = auth
    }
}

/// How requests to a `webdav` or `http` upstream are authenticated.
public enum AuthConfig: Sendable, Equatable {
    /// No credentials.
    case none
    /// `Authorization: Basic`, sent pre-emptively.
    case basic(username: String, password: Secret)
    /// HTTP Digest (RFC 7616), answered by libcurl after the server's challenge.
    case digest(username: String, password: Secret)
    /// `Authorization: Bearer <token>`.
    case bearer(token: Secret)

    /// The `type` name as written in the config.
    public var typeName: String {
        switch self {
        case .none: "none"
        case .basic: "basic"
        case .digest: "digest"
        case .bearer: "bearer"
        }
    }
}

/// A `directory` upstream.
public struct DirectoryConfig: Sendable {
    /// The root folder (absolute, symlinks resolved).
    public var root: String

    /// The folder at `root`.
    public init(root: String) {
        self.root = root
    }
}

/// An `s3` upstream.
public struct S3Config: Sendable {
    /// Endpoint, bucket, region and addressing style.
    public var location: S3Location
    /// The access key requests are signed with; nil for a public bucket.
    public var credentials: SigV4Credentials?
    /// Static headers added to every request.
    public var headers: [String: Secret] = [:]
    /// Timeouts and concurrency.
    public var requests = RequestSettings()

    /// The bucket at `location`, signed with `credentials`.
    public init(location: S3Location, credentials: SigV4Credentials?) {
        self.location = location
        self.credentials = credentials
    }
}

/// A cloud drive signed in with OAuth2 (`onedrive` and the other drive kinds): the provider's API, reached at its
/// public address unless configured otherwise, with downloads from its content hosts.
public struct CloudDriveConfig: Sendable {
    /// The OAuth2 client and token file.
    public var oauth: OAuth2Config
    /// The API's base URL when not the provider's public one (national clouds, proxies, emulators; ends with `/`).
    public var apiBaseURL: String?
    /// The origin downloads come from, when not the provider's own content hosts.
    public var contentBaseURL: String?
    /// Timeouts and concurrency.
    public var requests = RequestSettings()

    /// A drive signed in with `oauth`.
    public init(oauth: OAuth2Config) {
        self.oauth = oauth
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
