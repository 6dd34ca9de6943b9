import SluiceCore

/// The Box Content API calls of one upstream, through its origin: folder listings, file metadata and download URLs.
/// A file named by a path whose ID came from the ``BoxPaths`` cache and that Box no longer knows (404) is looked up
/// again once, from listings, before it counts as missing.
struct BoxAPI: Sendable {
    /// Largest metadata answer read.
    static let metadataBodyLimit = 256 << 10
    /// Largest listing page read: a thousand entries of three short fields.
    static let listingBodyLimit = 4 << 20
    /// Entries asked for per listing page, Box's maximum.
    static let pageLimit = 1_000
    /// `/content` answers tried while Box says the file is not ready yet (202), and the longest total wait for it.
    static let notReadyAttempts = 4
    static let notReadyBudget = Duration.seconds(20)

    let origin: HTTPOrigin
    let paths: BoxPaths
    /// How long a download URL is used.
    let linkLifetime: Duration

    /// The API of `origin`, paths from `rootFolderID`.
    init(origin: HTTPOrigin, rootFolderID: String, linkLifetime: Duration) {
        self.origin = origin
        self.linkLifetime = linkLifetime
        paths = BoxPaths(rootFolderID: rootFolderID) { folderID, marker throws(UpstreamError) in
            try await Self.page(of: folderID, after: marker, through: origin)
        }
    }

    /// The metadata of the file at `path`.
    func file(_ path: AssetPath) async throws(UpstreamError) -> BoxFile {
        try await byID(path) { id throws(UpstreamError) in
            let response = try await get("files/\(id)?fields=\(BoxFile.fields)", bodyLimit: Self.metadataBodyLimit)
            guard response.head.status == 200 else { throw UpstreamError(response: response.head) }
            return try BoxFile(response.body)
        }
    }

    /// A download URL for the current version of the file at `path`.
    func downloadLink(_ path: AssetPath) async throws(UpstreamError) -> DownloadLink {
        try await byID(path) { id throws(UpstreamError) in try await downloadLink(fileID: id) }
    }

    /// A download URL for the file `fileID`: `/content` answers 302 with it in `Location` (not followed: the
    /// download host gets no token), or 202 with `Retry-After` while Box prepares the file, which is waited out
    /// within ``notReadyAttempts`` and ``notReadyBudget``.
    func downloadLink(fileID: String) async throws(UpstreamError) -> DownloadLink {
        var waited = Duration.zero
        for attempt in 1... {
            let response = try await get("files/\(fileID)/content", bodyLimit: Self.metadataBodyLimit, follow: false)
            let head = response.head
            switch head.status {
            case 301, 302, 303, 307, 308:
                guard let location = head.value("location") else {
                    throw .protocolViolation("Box /content redirect without Location")
                }
                return try origin.downloadLink(location, expires: .now + linkLifetime)
            case 202:
                let wait = RetryBackoff.retryAfter(head.value("retry-after")) ?? .seconds(1)
                guard attempt < Self.notReadyAttempts, waited + wait <= Self.notReadyBudget else {
                    throw .busy(status: 202, retryAfter: wait)
                }
                do {
                    try await Task.sleep(for: wait)
                } catch {
                    throw .cancelled
                }
                waited += wait
            default:
                throw UpstreamError(response: head)
            }
        }
        preconditionFailure("the attempts above return or throw")
    }

    /// `call` with the ID of the item at `path`, which must be a file; once more with a fresh lookup when the ID
    /// came from the cache and Box no longer has it.
    private func byID<T>(_ path: AssetPath, _ call: (String) async throws(UpstreamError) -> T)
        async throws(UpstreamError) -> T
    {
        let (item, cached) = try await paths.item(at: path)
        do throws(UpstreamError) {
            return try await call(try Self.fileID(item))
        } catch .notFound where cached {
            paths.forget(path)
            return try await call(try Self.fileID(try await paths.item(at: path).item))
        }
    }

    private static func fileID(_ item: BoxItem) throws(UpstreamError) -> String {
        guard item.kind == .file else { throw .notAFile }
        return item.id
    }

    private func get(_ relative: String, bodyLimit: Int, follow: Bool = true) async throws(UpstreamError)
        -> CurlResponse
    {
        var request = origin.request("GET", url: origin.url(relative), headers: ["Accept: application/json"])
        if !follow { request.maxRedirects = 0 }
        return try await origin.perform(request, bodyLimit: bodyLimit)
    }

    private static func page(of folderID: String, after marker: String?, through origin: HTTPOrigin)
        async throws(UpstreamError) -> BoxFolderPage
    {
        var query = "fields=id,type,name&limit=\(pageLimit)&usemarker=true"
        if let marker { query += "&" + FormEncoding.encode([("marker", marker)]) }
        let request = origin.request(
            "GET", url: origin.url("folders/\(folderID)/items?" + query), headers: ["Accept: application/json"])
        let response = try await origin.perform(request, bodyLimit: listingBodyLimit)
        guard response.head.status == 200 else { throw UpstreamError(response: response.head) }
        return try BoxFolderPage(response.body)
    }
}
