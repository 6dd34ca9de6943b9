import SluiceCore
import SluiceCrypto

/// A Google Drive through the Drive API v3 (`kind: google-drive`): My Drive, or one shared drive (`driveId`), signed
/// in as a person with OAuth2 or as a service account with its key. The asset path is `id:FILEID`, or a path under
/// the drive's root walked one folder at a time with `files.list` (the IDs found are kept). Content info comes from
/// `files.get`; bytes from `files/{id}?alt=media` on the API host itself, with the token and the `Range`: Drive has
/// no header-free download URL, so there is no redirect delivery. Rate and download limits are backed off, then told
/// to the client as 503 with `Retry-After`.
struct GoogleDriveUpstream: Upstream {
    /// The Drive API v3.
    static let defaultAPI = "https://www.googleapis.com/drive/v3/"
    /// Reading files and their metadata, nothing more.
    static let defaultScope = "https://www.googleapis.com/auth/drive.readonly"
    /// Attempts while Drive limits the account, with delays of about 0.5, 1 and 2 s between them: rclone's Drive
    /// pacer waits 2^(n-1) s plus jitter; a reader is waiting here, so the steps are halved and fewer.
    static let backoff = RetryBackoff(attempts: 4, base: .milliseconds(500), cap: .seconds(5))

    let name: String
    private let api: GoogleDriveAPI
    private let authorizer: OAuth2Authorizer
    private let acknowledgeAbuse: Bool

    var requestLoad: RequestLoad? { api.origin.slots.load }
    var tokenStatus: TokenStatus? { authorizer.status }

    init(name: String, config: GoogleDriveConfig, client: CurlClient, logger: Logger?) throws(UpstreamSetupError) {
        self.name = name
        switch config.auth {
        case .oauth2(let oauth):
            var drive = CloudDriveConfig(oauth: oauth)
            drive.requests = config.requests
            authorizer = try .cloudDrive(
                name, drive: drive, tokenURL: OAuth2Endpoints.googleToken, scope: Self.defaultScope, client: client,
                logger: logger)
        case .serviceAccount(let account):
            authorizer = try Self.serviceAccount(
                name, account, requests: config.requests, client: client, logger: logger)
        }
        // Downloads come from the API host: no other host is ever contacted, and a redirect is refused.
        let origin = try HTTPOrigin(
            upstream: name, baseURL: config.apiBaseURL ?? Self.defaultAPI, requests: config.requests, client: client,
            authorizer: authorizer, backoff: RetryBackoff(attempts: 1))
        api = GoogleDriveAPI(
            origin: origin, driveID: config.driveID, resourceKeys: config.resourceKeys, backoff: Self.backoff)
        acknowledgeAbuse = config.acknowledgeAbuse
    }

    func contentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo {
        let found = try await api.fileID(for: path)
        do {
            return try await api.metadata(of: found.id)
        } catch .notFound where found.cached {
            // The file (or a folder on its way) was replaced since its ID was found: walk the path again.
            api.ids.forget(path)
            return try await api.metadata(of: try await api.fileID(for: path).id)
        }
    }

    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> FetchHandle {
        GoogleDriveFetch(api: api, path: path, range: range, acknowledgeAbuse: acknowledgeAbuse, into: sink)
    }

    func downloadLink(for path: AssetPath) async throws(UpstreamError) -> DownloadLink? { nil }

    /// The authorizer of a service account: tokens minted from its key at its token endpoint, kept in memory.
    private static func serviceAccount(
        _ name: String, _ account: ServiceAccountConfig, requests: RequestSettings, client: CurlClient,
        logger: Logger?
    ) throws(UpstreamSetupError) -> OAuth2Authorizer {
        let signer: RSASigner
        do {
            signer = try RSASigner(pem: account.privateKey.value)
        } catch {
            throw .serviceAccountKey(upstream: name, reason: "\(account.keyFile) holds no usable RSA private key")
        }
        let assertion = ServiceAccountAssertion(
            issuer: account.clientEmail, keyID: account.keyID, scope: account.scope ?? defaultScope,
            audience: account.tokenURL ?? OAuth2Endpoints.googleToken, subject: account.subject)
        let endpoint = ServiceAccountTokenEndpoint(
            assertion: assertion, signer: signer, client: client, timeouts: requests.timeouts)
        return OAuth2Authorizer(
            upstream: name, token: ServiceAccountTokenEndpoint.placeholder, endpoint: endpoint, file: nil,
            logger: logger)
    }
}
