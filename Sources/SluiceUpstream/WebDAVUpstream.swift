import SluiceCore

/// A WebDAV server (`kind: webdav`): content info from `PROPFIND Depth: 0` (HEAD when PROPFIND is refused or its
/// answer unusable), bytes from ranged GET.
struct WebDAVUpstream: Upstream {
    /// Largest PROPFIND answer read into memory.
    static let propfindBodyLimit = 1 << 20

    /// The properties asked for (RFC 4918 §9.1): only what ``ContentInfo`` needs.
    static let propfindBody = Array(
        """
        <?xml version="1.0" encoding="utf-8"?>
        <D:propfind xmlns:D="DAV:"><D:prop><D:getcontentlength/><D:getcontenttype/><D:getetag/>\
        <D:getlastmodified/><D:resourcetype/></D:prop></D:propfind>
        """.utf8)

    let name: String
    private let origin: HTTPOrigin

    var requestLoad: RequestLoad? { origin.slots.load }
    /// A GET answers with the `ETag`, `Last-Modified` and type that PROPFIND reports.
    var fetchDescribesContent: Bool { true }

    init(name: String, server: HTTPServerConfig, client: CurlClient) throws(UpstreamSetupError) {
        self.name = name
        origin = try HTTPOrigin(upstream: name, server: server, client: client)
    }

    func contentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo {
        let request = origin.request(
            "PROPFIND", path, headers: ["Depth: 0", "Content-Type: application/xml; charset=utf-8"],
            body: Self.propfindBody
        )
        let response = try await origin.perform(request, bodyLimit: Self.propfindBodyLimit)
        switch response.head.status {
        case 207:
            if let properties = PropfindProperties.parse(response.body) {
                if properties.isCollection { throw .notAFile }
                if properties.hasUnusableLength { throw .protocolViolation("unusable getcontentlength") }
                if let length = properties.length {
                    return ContentInfo(
                        length: length, contentType: properties.contentType, etag: properties.etag,
                        lastModified: properties.lastModified
                    )
                }
            }
        case 200, 405, 501:
            // PROPFIND not implemented or not allowed here: plain HTTP metadata still works.
            break
        default:
            throw UpstreamError(response: response.head)
        }
        return try await origin.headContentInfo(for: path)
    }

    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> FetchHandle {
        origin.fetch(path, range: range, ifRange: ifRange, into: sink)
    }
}
