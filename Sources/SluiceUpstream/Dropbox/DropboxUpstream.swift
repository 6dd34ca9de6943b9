import SluiceCore

/// A Dropbox account through the Dropbox API v2 (`kind: dropbox`), signed in with OAuth2: short-lived access tokens
/// renewed with a refresh token that Dropbox does not rotate. The asset path is a path from the account's root, or
/// an `id:…` file ID. Content info comes from `files/get_metadata`; bytes from `files/download` on the
/// content-download host, with the token, the argument in `Dropbox-API-Arg` and the `Range`. A fill names the
/// version it continues by its rev (`rev:…`), so it gets exactly those bytes. The header-free URL handed out for
/// redirect delivery is a temporary link (`files/get_temporary_link`), kept per file.
struct DropboxUpstream: Upstream {
    /// The RPC endpoints (api.dropboxapi.com).
    static let defaultAPI = "https://api.dropboxapi.com/2/"
    /// The content-download endpoints (content.dropboxapi.com).
    static let defaultContentAPI = "https://content.dropboxapi.com/2/"
    /// Reading files and their metadata; an app's permissions must include both.
    static let defaultScope = "files.metadata.read files.content.read"
    /// Where temporary links point, when no `linkOrigin` is configured.
    static let linkDomains = ["dropboxusercontent.com"]
    /// Largest metadata answer read.
    static let metadataBodyLimit = 256 << 10
    /// How long a temporary link is handed out: Dropbox says one "will expire in four hours" and gives no expiry
    /// with it, so this ends five minutes before.
    static let linkLifetime = Duration.seconds(4 * 3_600 - 300)

    let name: String
    private let origin: HTTPOrigin
    private let download: String
    private let authorizer: OAuth2Authorizer
    private let links: DownloadLinks

    var requestLoad: RequestLoad? { origin.slots.load }
    var tokenStatus: TokenStatus? { authorizer.status }

    init(name: String, config: DropboxConfig, client: CurlClient, logger: Logger?) throws(UpstreamSetupError) {
        let drive = config.drive
        self.name = name
        authorizer = try .cloudDrive(
            name, drive: drive, tokenURL: OAuth2Endpoints.dropboxToken, scope: Self.defaultScope, client: client,
            logger: logger)
        // One origin serves both API hosts: the content-download host is Dropbox's own, so its requests carry the
        // token and count against the same cap on requests in flight. Redirects, which the API does not make, and
        // temporary links may only lead to the link hosts.
        download = (drive.contentBaseURL ?? Self.defaultContentAPI) + "files/download"
        origin = try HTTPOrigin(
            cloudDrive: name, drive: drive, defaultAPI: Self.defaultAPI, contentOrigin: config.linkOrigin,
            contentDomains: Self.linkDomains, authorizer: authorizer, client: client)
        links = DownloadLinks { [origin] path throws(UpstreamError) in
            let answer = try await Self.call("files/get_temporary_link", for: path, through: origin)
            let link = try DropboxMetadata.temporaryLink(from: answer.body).link
            return try origin.downloadLink(link, expires: .now + Self.linkLifetime)
        }
    }

    func contentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo {
        try DropboxMetadata.contentInfo(
            from: try await Self.call("files/get_metadata", for: path, through: origin).body)
    }

    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> FetchHandle {
        let revision = ifRange.flatMap(DropboxArgument.revisionPath)
        let argument = DropboxArgument.json(path: revision ?? DropboxArgument.path(of: path))
        // Dropbox does not document its download's validators, so no If-Range: the rev in the path pins the version.
        return origin.fetch(
            url: download, range: range, ifRange: nil, headers: ["Dropbox-API-Arg: " + argument],
            into: PinnedVersionSink.dropboxDownload(sink, version: revision == nil ? nil : ifRange))
    }

    func downloadLink(for path: AssetPath) async throws(UpstreamError) -> DownloadLink? {
        try await links.link(for: path)
    }

    /// POSTs the RPC `endpoint` with `path` as its argument; the answer when it is a 200.
    private static func call(_ endpoint: String, for path: AssetPath, through origin: HTTPOrigin)
        async throws(UpstreamError) -> CurlResponse
    {
        let body = DropboxArgument.json(path: DropboxArgument.path(of: path))
        let response = try await origin.perform(
            origin.request(
                "POST", url: origin.url(endpoint), headers: ["Content-Type: application/json"], body: Array(body.utf8)),
            bodyLimit: metadataBodyLimit)
        guard response.head.status == 200 else { throw DropboxError.upstreamError(for: response) }
        return response
    }
}
