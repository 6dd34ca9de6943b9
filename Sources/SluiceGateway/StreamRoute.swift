import SluiceCore

/// Parses the path of a stream URL, `/stream/{upstream}/{percent-encoded path}`, into an asset ID.
enum StreamRoute {
    /// The URL prefix of stream requests.
    static let prefix = "/stream/"

    /// The upstream name of a stream path, without validating the rest (for logs).
    static func upstreamName(fromPath path: String) -> String? {
        guard path.hasPrefix(prefix) else { return nil }
        let name = path.dropFirst(prefix.count).prefix { $0 != "/" }
        return AssetID.isValidUpstreamName(String(name)) ? String(name) : nil
    }

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
