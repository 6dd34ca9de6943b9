import SluiceCore

/// A Box account through the Box Content API 2.0 (`kind: box`), signed in with OAuth2: access tokens for an hour,
/// renewed with refresh tokens that Box lets be used once (each refresh's new one is stored before it is used). The
/// asset path is `id:FILEID` or a path from the root folder, looked up through folder listings (``BoxPaths``).
/// Content info comes from the file's metadata; bytes from the download URL that `/content` redirects to, fetched
/// without `Authorization` with the `Range`, kept per file for the configured lifetime. A fill asks for its URL
/// under the version it continues, and only takes one while the file's SHA-1 is still that version's, so a file
/// replaced meanwhile is noticed, not mixed. The same URLs, asked for the file's current version, serve redirect
/// delivery.
struct BoxUpstream: Upstream {
    /// The Content API.
    static let defaultAPI = "https://api.box.com/2.0/"
    /// Reading every file and folder the user can; an app's configured scopes must include it.
    static let defaultScope = "root_readonly"
    /// Where `/content` redirects (dl.boxcloud.com, public.boxcloud.com), when no `contentBaseURL` is configured.
    static let contentDomains = ["boxcloud.com"]

    let name: String
    private let api: BoxAPI
    private let authorizer: OAuth2Authorizer
    /// Download URLs of files' current versions, by asset path.
    private let links: DownloadLinks
    /// Download URLs asked for under a version, by asset path with the validator as a last segment.
    private let versionLinks: DownloadLinks

    var requestLoad: RequestLoad? { api.origin.slots.load }
    var tokenStatus: TokenStatus? { authorizer.status }

    init(name: String, config: BoxConfig, client: CurlClient, logger: Logger?) throws(UpstreamSetupError) {
        let drive = config.drive
        self.name = name
        // Refreshes name no scope: Box documents `scope` on its token endpoint for down-scoping, not for refreshes.
        authorizer = try .cloudDrive(
            name, drive: drive, tokenURL: OAuth2Endpoints.boxToken, scope: nil, client: client, logger: logger)
        let origin = try HTTPOrigin(
            cloudDrive: name, drive: drive, defaultAPI: Self.defaultAPI, contentOrigin: drive.contentBaseURL,
            contentDomains: Self.contentDomains, authorizer: authorizer, client: client)
        let api = BoxAPI(origin: origin, rootFolderID: config.rootFolderID, linkLifetime: config.linkLifetime)
        self.api = api
        links = DownloadLinks { path throws(UpstreamError) in try await api.downloadLink(path) }
        versionLinks = DownloadLinks { key throws(UpstreamError) in
            let (path, version) = Self.split(key)
            let file = try await api.file(path)
            guard file.info.etag == version else { throw .changed }
            return try await api.downloadLink(fileID: file.id)
        }
    }

    func contentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo {
        try await api.file(path).info
    }

    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> FetchHandle {
        // The download host's validators are not Box's metadata's, so no If-Range: the version check pins the bytes.
        guard let ifRange, let key = try? AssetPath(segments: path.segments + [ifRange]) else {
            return api.origin.fetch(
                link: links, for: path, range: range, ifRange: nil, into: PinnedVersionSink(sink, version: nil))
        }
        return api.origin.fetch(
            link: versionLinks, for: key, range: range, ifRange: nil, into: PinnedVersionSink(sink, version: ifRange))
    }

    func downloadLink(for path: AssetPath) async throws(UpstreamError) -> DownloadLink? {
        try await links.link(for: path)
    }

    /// The asset path and the validator of a ``versionLinks`` key.
    private static func split(_ key: AssetPath) -> (AssetPath, String) {
        guard key.segments.count > 1, let path = try? AssetPath(segments: Array(key.segments.dropLast())) else {
            preconditionFailure("a version link key is a path and a validator")
        }
        return (path, key.segments[key.segments.count - 1])
    }
}
