import SluiceCore

/// Parses the path of a stream URL, `/stream/{upstream}/{percent-encoded path}`, into an asset ID.
enum StreamRoute {
    /// The URL prefix of stream requests.
    static let prefix: StaticString = "/stream/"

    /// Whether `path` starts with ``prefix``, compared as bytes (`hasPrefix` compares characters, which showed in
    /// the cost of every cache hit).
    static func isStreamPath(_ path: String) -> Bool {
        path.hasBytePrefix(prefix)
    }

    /// The upstream name of a stream path, without validating the rest (for logs).
    static func upstreamName(fromPath path: String) -> String? {
        guard isStreamPath(path) else { return nil }
        let name = path.dropFirst(prefix.utf8CodeUnitCount).prefix { $0 != "/" }
        return AssetID.isValidUpstreamName(String(name)) ? String(name) : nil
    }

    /// The asset addressed by `path` (the raw, still percent-encoded request path).
    static func assetID(fromPath path: String) throws(AssetPathError) -> AssetID {
        guard isStreamPath(path) else { throw .empty }
        let rest = path.dropFirst(prefix.utf8CodeUnitCount)
        guard let slash = rest.firstIndex(of: "/") else { throw .empty }
        let upstream = String(rest[..<slash])
        guard AssetID.isValidUpstreamName(upstream) else { throw .badAssetID }
        return AssetID(upstream: upstream, path: try AssetPath(encoded: String(rest[rest.index(after: slash)...])))
    }
}
