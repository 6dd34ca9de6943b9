import SluiceCore

/// A Yandex.Disk through its REST API (`kind: yandex-disk`), signed in with OAuth2 and sent as
/// `Authorization: OAuth TOKEN` (Yandex's scheme word, not `Bearer`); refresh tokens may rotate, and the renewed
/// pair is saved. The asset path is a path under the configured root (`disk:/` unless configured). Content info
/// comes from the Resource (`resources?path=`), whose `file` is also the download URL; without one,
/// `resources/download` gives it. That URL serves the bytes to a request without any token (it redirects once more
/// to a storage host), is fetched with the `Range` and no `Authorization`, and is kept per file for the configured
/// link lifetime, so seeks cost no API request; one the content host refuses is replaced.
struct YandexDiskUpstream: Upstream {
    /// The Disk REST API.
    static let defaultAPI = "https://cloud-api.yandex.net/v1/disk/"
    /// Reading the whole disk; an app limited to its folder has `cloud_api:disk.app_folder` instead.
    static let defaultScope = "cloud_api:disk.read"
    /// Where download URLs point (downloader.disk.yandex.ru, the docs' downloader.dst.yandex.ru) and where those
    /// redirect (`*.storage.yandex.net`), when no `contentBaseURL` is configured.
    static let contentDomains = ["disk.yandex.ru", "disk.yandex.com", "dst.yandex.ru", "storage.yandex.net"]
    /// Largest API answer read.
    static let bodyLimit = 256 << 10

    let name: String
    private let origin: HTTPOrigin
    private let root: String
    private let linkLifetime: Duration
    private let authorizer: OAuth2Authorizer
    private let links: DownloadLinks

    var requestLoad: RequestLoad? { origin.slots.load }
    var tokenStatus: TokenStatus? { authorizer.status }

    init(name: String, config: YandexDiskConfig, client: CurlClient, logger: Logger?) throws(UpstreamSetupError) {
        let drive = config.drive
        self.name = name
        root = config.root
        linkLifetime = config.linkLifetime
        authorizer = try .cloudDrive(
            name, drive: drive, tokenURL: OAuth2Endpoints.yandexToken, scope: Self.defaultScope, scheme: "OAuth",
            client: client, logger: logger)
        origin = try HTTPOrigin(
            cloudDrive: name, drive: drive, defaultAPI: Self.defaultAPI, contentOrigin: drive.contentBaseURL,
            contentDomains: Self.contentDomains, authorizer: authorizer, client: client)
        links = DownloadLinks { [origin, root, linkLifetime] path throws(UpstreamError) in
            let answer = try await Self.get("resources/download", path, root: root, from: origin)
            let href = try YandexDiskResource.link(from: answer.body)
            return try origin.downloadLink(href, expires: .now + linkLifetime)
        }
    }

    func contentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo {
        let answer = try await Self.get(
            "resources", path, root: root, fields: YandexDiskResource.fields, from: origin)
        let resource = try YandexDiskResource(answer.body)
        if let url = resource.downloadURL {
            links.store(try origin.downloadLink(url, expires: .now + linkLifetime), for: path)
        }
        return resource.info
    }

    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> FetchHandle {
        origin.fetch(link: links, for: path, range: range, ifRange: ifRange, into: sink)
    }

    func downloadLink(for path: AssetPath) async throws(UpstreamError) -> DownloadLink? {
        try await links.link(for: path)
    }

    /// GETs the API call `endpoint` about `path` under `root`; the answer when it is a 200.
    private static func get(
        _ endpoint: String, _ path: AssetPath, root: String, fields: String? = nil, from origin: HTTPOrigin
    ) async throws(UpstreamError) -> CurlResponse {
        let query = YandexDiskPath.query(YandexDiskPath.name(of: path, root: root), fields: fields)
        let response = try await origin.perform(
            origin.request("GET", url: origin.url(endpoint + "?" + query), headers: ["Accept: application/json"]),
            bodyLimit: bodyLimit)
        guard response.head.status == 200 else { throw YandexDiskError.upstreamError(for: response) }
        return response
    }
}
