import SluiceCore

/// A plain HTTP(S) origin (`kind: http`): content info from HEAD, bytes from ranged GET.
struct HTTPUpstream: Upstream {
    let name: String
    private let origin: HTTPOrigin

    var requestLoad: RequestLoad? { origin.slots.load }
    /// A GET answers with the same `ETag`, `Last-Modified` and type as HEAD.
    var fetchDescribesContent: Bool { true }

    init(name: String, server: HTTPServerConfig, client: CurlClient) throws(UpstreamSetupError) {
        self.name = name
        origin = try HTTPOrigin(upstream: name, server: server, client: client)
    }

    func contentInfo(for path: AssetPath) async throws(UpstreamError) -> ContentInfo {
        try await origin.headContentInfo(for: path)
    }

    func fetch(_ path: AssetPath, range: ByteRange?, ifRange: String?, into sink: any FetchSink) -> FetchHandle {
        origin.fetch(path, range: range, ifRange: ifRange, into: sink)
    }
}
