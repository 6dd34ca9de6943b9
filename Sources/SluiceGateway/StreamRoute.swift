import SluiceCore

/// Parses the path of a stream URL, `/stream/{upstream}/{percent-encoded path}`, into an asset ID.
enum StreamRoute {
    /// The URL prefix of stream requests.
    static let prefix = "/stream/"

    /// The asset addressed by `path` (the raw, still percent-encoded request path).
    static func assetID(fromPath path: String) throws(AssetPathError) -> AssetID {
        guard path.hasPrefix(prefix) else { throw .empty }
        let rest = path.dropFirst(prefix.count)
        guard let slash = rest.firstIndex(of: "/") else { throw .empty }
        let upstream = String(rest[..<slash])
        guard AssetID.isValidUpstreamName(upstream) else { throw .badAssetID }
        return AssetID(upstream: upstream, path: try AssetPath(encoded: String(rest[rest.index(after: slash)...])))
    }
}
