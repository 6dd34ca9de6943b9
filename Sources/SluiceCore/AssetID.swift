/// A custom-scheme asset ID (`nas://music/a.mp3`): the scheme names an upstream, the rest is a path in it.
public struct AssetID: Hashable, Sendable, CustomStringConvertible {
    /// The upstream's configured name (the URI scheme).
    public let upstream: String
    /// The validated path inside the upstream.
    public let path: AssetPath

    /// Canonical text form, `upstream://path`; the key the cache stores the asset under.
    public let description: String

    /// Combines an upstream name and a path.
    public init(upstream: String, path: AssetPath) {
        self.upstream = upstream
        self.path = path
        description = upstream + "://" + path.description
    }

    /// Parses `scheme://path`; the path is taken literally (not percent-decoded).
    public init(parsing text: String) throws(AssetPathError) {
        // Split on bytes: a path starting with a combining mark or an emoji modifier joins the `/` before it into
        // one Character, and a Character-wise search would not find `://`. A scheme holds no `:`, so the first one
        // starts the separator.
        let bytes = text.utf8
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) else {
            throw .badAssetID
        }
        let scheme = String(Substring(bytes[..<colon]))
        guard Self.isValidUpstreamName(scheme) else { throw .badAssetID }
        self.init(
            upstream: scheme, path: try AssetPath(plain: String(Substring(bytes[bytes.index(colon, offsetBy: 3)...]))))
    }

    /// Equal when the canonical texts have the same bytes (see ``ExactString``); the text spells the upstream and
    /// every segment, as neither holds the separators.
    public static func == (a: AssetID, b: AssetID) -> Bool {
        a.description.isByteEqual(to: b.description)
    }

    /// Feeds the canonical text's bytes.
    public func hash(into hasher: inout Hasher) {
        description.hashBytes(into: &hasher)
    }

    /// The gateway URL path that streams this asset: `/stream/{upstream}/{percent-encoded path}`.
    public var streamPath: String { "/stream/\(upstream)/\(path.percentEncoded)" }

    /// Upstream names are URI schemes (RFC 3986 §3.1): a letter, then letters, digits, `+`, `-`, `.`.
    public static func isValidUpstreamName(_ name: String) -> Bool {
        let bytes = name.utf8
        guard let first = bytes.first, isLetter(first), bytes.count <= 64 else { return false }
        return bytes.allSatisfy { byte in
            isLetter(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+")
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
        }
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20)
    }
}
