/// A custom-scheme asset ID (`nas://music/a.mp3`): the scheme names an upstream, the rest is a path in it.
public struct AssetID: Hashable, Sendable, CustomStringConvertible {
    /// The upstream's configured name (the URI scheme).
    public let upstream: String
    /// The validated path inside the upstream.
    public let path: AssetPath

    /// Combines an upstream name and a path.
    public init(upstream: String, path: AssetPath) {
        self.upstream = upstream
        self.path = path
    }

    /// Parses `scheme://path`; the path is taken literally (not percent-decoded).
    public init(parsing text: String) throws(AssetPathError) {
        guard let separator = text.range(of: "://") else { throw .badAssetID }
        let scheme = String(text[..<separator.lowerBound])
        guard Self.isValidUpstreamName(scheme) else { throw .badAssetID }
        self.init(upstream: scheme, path: try AssetPath(plain: String(text[separator.upperBound...])))
    }

    /// Canonical text form, `upstream://path`; the key the cache stores the asset under.
    public var description: String { "\(upstream)://\(path)" }

    /// The gateway URL path that streams this asset: `/stream/{upstream}/{percent-encoded path}`.
    public var streamPath: String { "/stream/\(upstream)/\(path.percentEncoded)" }

    /// Upstream names are URI schemes (RFC 3986 §3.1): a letter, then letters, digits, `+`, `-`, `.`.
    public static func isValidUpstreamName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else {
            return false
        }
        return name.count <= 64
            && name.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII
                    && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar)
                        || "+-.".unicodeScalars.contains(scalar))
            }
    }
}
