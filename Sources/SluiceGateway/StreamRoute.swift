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

    /// What follows ``prefix`` in a stream path, cut after the prefix's bytes (not its characters: a combining mark
    /// right after the prefix stays in the rest, where it fails validation, instead of merging into the prefix's `/`).
    private static func afterPrefix(_ path: String) -> Substring {
        Substring(path.utf8.dropFirst(prefix.utf8CodeUnitCount))
    }

    /// The upstream name of a stream path, without validating the rest (for logs).
    static func upstreamName(fromPath path: String) -> String? {
        guard isStreamPath(path) else { return nil }
        // Cut at the first `/` byte: cutting characters costs a grapheme walk, on every access line.
        let rest = afterPrefix(path).utf8
        let name = String(Substring(rest[..<(rest.firstIndex(of: UInt8(ascii: "/")) ?? rest.endIndex)]))
        return AssetID.isValidUpstreamName(name) ? name : nil
    }

    /// The asset addressed by `path` (the raw, still percent-encoded request path).
    static func assetID(fromPath path: String) throws(AssetPathError) -> AssetID {
        guard isStreamPath(path) else { throw .empty }
        let rest = afterPrefix(path)
        guard let slash = rest.firstIndex(of: "/") else { throw .empty }
        let upstream = String(rest[..<slash])
        guard AssetID.isValidUpstreamName(upstream) else { throw .badAssetID }
        return AssetID(upstream: upstream, path: try AssetPath(encoded: String(rest[rest.index(after: slash)...])))
    }
}
