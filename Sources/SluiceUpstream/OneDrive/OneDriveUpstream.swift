import Foundation
import SluiceCore

/// A OneDrive or SharePoint drive through Microsoft Graph (`kind: onedrive`), signed in with OAuth2. The asset path
/// is a path under the drive's root, or `id:ITEMID`. Content info comes from the driveItem; bytes from the item's
/// `/content`, which Graph answers with a 302 to a pre-authenticated URL on a content host: the redirect is
/// followed without `Authorization` (credentials only go to the API's own origin) and the `Range` goes with it.
struct OneDriveUpstream: Upstream {
    /// Microsoft Graph.
    static let defaultAPI = "https://graph.microsoft.com/v1.0/"
    /// The Microsoft identity platform's token endpoint for personal and work accounts.
    static let defaultTokenURL = "https://login.microsoftonline.com/common/oauth2/v2.0/token"
    /// Reading files, and a refresh token to keep doing so.
    static let defaultScope = "offline_access Files.Read.All"
    /// Where Graph's pre-authenticated download URLs point, when no `contentBaseURL` is configured.
    static let contentDomains = ["sharepoint.com", "1drv.com", "livefilestore.com", "onedrive.com"]
    /// Largest driveItem answer read.
    static let itemBodyLimit = 256 << 10

    let name: String
    private let origin: HTTPOrigin

    var requestLoad: RequestLoad? { origin.slots.load }
    private let authorizer: OAuth2Authorizer

    init(name: String, drive: OneDriveConfig, client: CurlClient, logger: Logger?) throws(UpstreamSetupError) {
        let oauth = drive.oauth
        let file = TokenFile(path: oauth.tokenFile)
        let token: OAuth2Token
        do throws(TokenFile.Failure) {
            token = try file.read()
            try file.checkWritable()
        } catch {
            throw .tokenFile(upstream: name, reason: error.description)
        }
        let endpoint = OAuth2TokenEndpoint(
            url: oauth.tokenURL ?? Self.defaultTokenURL, clientID: oauth.clientID, clientSecret: oauth.clientSecret,
            scope: oauth.scope ?? Self.defaultScope, client: client, timeouts: drive.requests.timeouts)
        self.name = name
        authorizer = OAuth2Authorizer(upstream: name, token: token, endpoint: endpoint, file: file, logger: logger)
        origin = try HTTPOrigin(
            upstream: name, baseURL: drive.apiBaseURL ?? Self.defaultAPI, requests: drive.requests, client: client,
            authorizer: authorizer, redirectHosts: drive.contentBaseURL.map { [$0] } ?? [],
            redirectDomains: drive.contentBaseURL == nil ? Self.contentDomains : [])
    }

    func contentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo {
        let response = try await origin.perform(
            origin.request("GET", url: origin.url(Self.item(path)), headers: ["Accept: application/json"]),
            bodyLimit: Self.itemBodyLimit)
        guard response.head.status == 200 else { throw UpstreamError(response: response.head) }
        return try DriveItem.contentInfo(from: response.body)
    }

    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> FetchHandle {
        origin.fetch(url: origin.url(Self.content(path)), range: range, ifRange: ifRange, into: sink)
    }

    var tokenStatus: TokenStatus? { authorizer.status }

    /// The driveItem's address under the API: `me/drive/root:/a/b.mp4` or `me/drive/items/ID`.
    static func item(_ path: AssetPath) -> String {
        if let id = itemID(path) { return "me/drive/items/" + id }
        return "me/drive/root:/" + path.percentEncoded
    }

    /// The address of the item's bytes: `me/drive/root:/a/b.mp4:/content` or `me/drive/items/ID/content`.
    static func content(_ path: AssetPath) -> String {
        itemID(path) == nil ? item(path) + ":/content" : item(path) + "/content"
    }

    /// The percent-encoded item ID of an `id:ITEMID` path.
    private static func itemID(_ path: AssetPath) -> String? {
        guard path.segments.count == 1, path.segments[0].hasBytePrefix("id:"),
            let id = try? AssetPath(segments: [String(path.segments[0].dropFirst(3))])
        else { return nil }
        return id.percentEncoded
    }
}
