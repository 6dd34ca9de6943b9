import SluiceCore

/// The Drive API v3 calls a `google-drive` upstream makes, through its origin: `files.get` for metadata and
/// `files.list` to walk a path to its file ID, each with `supportsAllDrives=true` (and, for a shared drive,
/// `corpora=drive`), the resource keys of the files named, and a backoff while Drive limits the account.
struct GoogleDriveAPI: Sendable {
    /// Largest metadata or list answer read.
    static let bodyLimit = 256 << 10

    let origin: HTTPOrigin
    /// The shared drive paths start in; My Drive when nil.
    let driveID: String?
    let resourceKeys: [String: Secret]
    /// Retries while Drive answers with a rate or quota limit, or a 500 or 503.
    let backoff: RetryBackoff
    let ids = GoogleDriveFileIDs()

    /// The file ID of `path`: `id:FILEID` as given, else walked from the drive's root one folder at a time (and
    /// kept). `cached` says the ID came from what an earlier walk found.
    func fileID(for path: AssetPath) async throws(UpstreamError) -> (id: String, cached: Bool) {
        if let id = Self.explicitID(path) { return (id, false) }
        if let id = ids.id(of: path) { return (id, true) }
        let segments = path.segments
        var parent = driveID ?? "root"
        var start = 0
        // The deepest folder on the way that an earlier walk found.
        for depth in stride(from: segments.count - 1, to: 0, by: -1) {
            if let prefix = try? AssetPath(segments: Array(segments.prefix(depth))), let id = ids.id(of: prefix) {
                (parent, start) = (id, depth)
                break
            }
        }
        for depth in start..<segments.count {
            let isLast = depth == segments.count - 1
            guard let id = try await child(named: segments[depth], in: parent, folder: !isLast) else { throw .notFound }
            if let prefix = try? AssetPath(segments: Array(segments.prefix(depth + 1))) { ids.store(id, for: prefix) }
            parent = id
        }
        return (parent, false)
    }

    /// The ID of an `id:FILEID` path; nil for any other path.
    static func explicitID(_ path: AssetPath) -> String? {
        guard path.segments.count == 1, path.segments[0].hasBytePrefix("id:") else { return nil }
        return String(path.segments[0].dropFirst(3))
    }

    /// The metadata of file `id`.
    func metadata(of id: String) async throws(UpstreamError) -> ContentInfo {
        guard GoogleDriveConfig.isIdentifier(id) else { throw .notFound }
        let response = try await get(
            "files/" + id, [("fields", GoogleDriveFile.fields), ("supportsAllDrives", "true")], about: [id])
        return try GoogleDriveFile.contentInfo(from: response.body)
    }

    /// The first entry named `name` in folder `parent`.
    private func child(named name: String, in parent: String, folder: Bool) async throws(UpstreamError) -> String? {
        var query = [
            ("q", GoogleDriveQuery.child(named: name, in: parent, folder: folder)), ("fields", "files(id)"),
            ("pageSize", "10"), ("supportsAllDrives", "true"), ("includeItemsFromAllDrives", "true"),
        ]
        if let driveID { query += [("corpora", "drive"), ("driveId", driveID)] }
        return try GoogleDriveFile.firstID(from: try await get("files", query, about: [parent]).body)
    }

    /// `X-Goog-Drive-Resource-Keys` for the files in `ids` that have a configured resource key.
    func resourceKeyHeaders(_ ids: [String]) -> [String] {
        let pairs = ids.compactMap { id in resourceKeys[id].map { "\(id)/\($0.value)" } }
        return pairs.isEmpty ? [] : ["X-Goog-Drive-Resource-Keys: " + pairs.joined(separator: ",")]
    }

    /// GET of `relative` with `query`, about the files `ids`; the answer when it is a 200. A rate or quota limit
    /// (and a 500 or 503) is asked again after the backoff's delay; one that persists is
    /// ``UpstreamError/quotaExceeded(retryAfter:)``.
    private func get(_ relative: String, _ query: [(String, String)], about ids: [String])
        async throws(UpstreamError) -> CurlResponse
    {
        let request = origin.request(
            "GET", url: origin.url(relative + "?" + FormEncoding.encode(query)),
            headers: ["Accept: application/json"] + resourceKeyHeaders(ids))
        var attempt = 1
        while true {
            let response = try await origin.perform(request, bodyLimit: Self.bodyLimit)
            if response.head.status == 200 { return response }
            let error = GoogleDriveError.upstreamError(for: response.head, body: response.body)
            guard Self.isWorthRetrying(error), attempt < backoff.attempts else { throw error }
            do {
                try await Task.sleep(for: backoff.delay(after: attempt, retryAfter: response.head.value("retry-after")))
            } catch {
                throw .cancelled
            }
            attempt += 1
        }
    }

    /// A limit that may lift, or a server that may recover.
    static func isWorthRetrying(_ error: UpstreamError) -> Bool {
        switch error {
        case .quotaExceeded, .busy: true
        case .badStatus(let status): status == 500
        default: false
        }
    }
}
