import Foundation
import SluiceCore

/// A OneDrive or SharePoint drive through Microsoft Graph (`kind: onedrive`), signed in with OAuth2. The asset path
/// is a path under the drive's root, or `id:ITEMID`. Content info comes from the driveItem, and so does the
/// pre-authenticated URL of its bytes on a content host (`@microsoft.graph.downloadUrl`, where `/content` would
/// redirect), fetched without `Authorization` with the `Range`. The URL is kept per item for ``linkLifetime``, so
/// seeks cost no Graph request; one the content host refuses is replaced.
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
    /// How long a download URL is used: Graph says they are "only valid for a short period of time (a few
    /// minutes)" and gives no expiry, so this stays well inside it.
    static let linkLifetime = Duration.seconds(120)

    let name: String
    private let origin: HTTPOrigin

    var requestLoad: RequestLoad? { origin.slots.load }
    private let authorizer: OAuth2Authorizer
    private let links: DownloadLinks

    init(name: String, drive: CloudDriveConfig, client: CurlClient, logger: Logger?) throws(UpstreamSetupError) {
        self.name = name
        authorizer = try .cloudDrive(
            name, drive: drive, tokenURL: Self.defaultTokenURL, scope: Self.defaultScope, client: client,
            logger: logger)
        origin = try HTTPOrigin(
            cloudDrive: name, drive: drive, defaultAPI: Self.defaultAPI, contentOrigin: drive.contentBaseURL,
            contentDomains: Self.contentDomains, authorizer: authorizer, client: client)
        links = DownloadLinks { [origin] path throws(UpstreamError) in
            let item = try await Self.item(path, from: origin)
            guard let link = try Self.link(item, from: origin) else {
                throw .protocolViolation("driveItem without @microsoft.graph.downloadUrl")
            }
            return link
        }
    }

    func contentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo {
        let item = try await Self.item(path, from: origin)
        if let link = try Self.link(item, from: origin) { links.store(link, for: path) }
        return item.info
    }

    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> FetchHandle {
        origin.fetch(link: links, for: path, range: range, ifRange: ifRange, into: sink)
    }

    func downloadLink(for path: AssetPath) async throws(UpstreamError) -> DownloadLink? {
        try await links.link(for: path)
    }

    /// The driveItem at `path`.
    private static func item(_ path: AssetPath, from origin: HTTPOrigin) async throws(UpstreamError) -> DriveItem {
        let response = try await origin.perform(
            origin.request("GET", url: origin.url(Self.itemAddress(path)), headers: ["Accept: application/json"]),
            bodyLimit: Self.itemBodyLimit)
        guard response.head.status == 200 else { throw UpstreamError(response: response.head) }
        return try DriveItem(response.body)
    }

    /// `item`'s download URL as a link, refused when it leads to a host that is not a content host.
    private static func link(_ item: DriveItem, from origin: HTTPOrigin) throws(UpstreamError) -> DownloadLink? {
        try item.downloadURL.map { url throws(UpstreamError) in
            try origin.downloadLink(url, expires: .now + linkLifetime)
        }
    }

    var tokenStatus: TokenStatus? { authorizer.status }

    /// The driveItem's address under the API: `me/drive/root:/a/b.mp4` or `me/drive/items/ID`.
    static func itemAddress(_ path: AssetPath) -> String {
        if let id = itemID(path) { return "me/drive/items/" + id }
        return "me/drive/root:/" + path.percentEncoded
    }

    /// The percent-encoded item ID of an `id:ITEMID` path.
    private static func itemID(_ path: AssetPath) -> String? {
        guard path.segments.count == 1, path.segments[0].hasBytePrefix("id:"),
            let id = try? AssetPath(segments: [String(path.segments[0].dropFirst(3))])
        else { return nil }
        return id.percentEncoded
    }
}
