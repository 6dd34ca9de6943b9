/// Why an asset path or asset ID was refused (docs/api.md, "Asset IDs and stream URLs": refused with 400 before
/// any upstream is contacted).
public enum AssetPathError: Error, Equatable, Sendable {
    /// The path has no segment.
    case empty
    /// A `.` or `..` segment, literal or percent-encoded.
    case dotSegment
    /// Two slashes in a row, or a trailing slash.
    case emptySegment
    /// A NUL or other control byte, literal or encoded.
    case controlCharacter
    /// A backslash, literal or encoded.
    case backslash
    /// An encoded slash (`%2F`) inside a segment.
    case encodedSlash
    /// A `%` not followed by two hex digits, or bytes that are not UTF-8.
    case badEncoding
    /// Longer than ``AssetPath/maxLength`` bytes or ``AssetPath/maxSegments`` segments.
    case tooLong
    /// An asset ID without `scheme://`, or with a scheme that is not a valid upstream name.
    case badAssetID
}

/// A validated path inside one upstream: decoded segments, none of them empty, `.`, `..`, or holding
/// a slash, backslash or control character. Safe to append to a base URL or a directory root.
public struct AssetPath: Hashable, Sendable, CustomStringConvertible {
    /// Longest accepted path, in decoded bytes (a separator counted after each segment).
    public static let maxLength = 4096
    /// Most segments accepted.
    public static let maxSegments = 256

    /// Decoded path segments.
    public let segments: [String]

    /// Validates decoded segments.
    public init(segments: [String]) throws(AssetPathError) {
        guard !segments.isEmpty else { throw .empty }
        guard segments.count <= Self.maxSegments else { throw .tooLong }
        var total = 0
        for segment in segments {
            try Self.check(segment)
            total += segment.utf8.count + 1
        }
        guard total <= Self.maxLength else { throw .tooLong }
        self.segments = segments
    }

    /// Parses a percent-encoded path as sent on the wire (`music/Album/01%20Intro.mp3`, no leading slash).
    public init(encoded: String) throws(AssetPathError) {
        // Encoding at most triples a path: anything longer is refused before it is decoded. The limit itself is
        // checked decoded, so the stream URL of every path an asset ID can name (found by fuzzing) opens too.
        guard encoded.utf8.count <= 3 * Self.maxLength else { throw .tooLong }
        guard !encoded.isEmpty else { throw .empty }
        var decoded: [String] = []
        // Split on the byte, not on Characters: a `/` followed by a combining mark is one Character.
        for raw in encoded.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(
            Substring.init)
        {
            guard !raw.isEmpty else { throw .emptySegment }
            let segment = try Self.percentDecode(raw)
            if segment.utf8.contains(UInt8(ascii: "/")) { throw .encodedSlash }
            decoded.append(segment)
        }
        try self.init(segments: decoded)
    }

    /// Parses an unencoded path as written in an asset ID (`music/Album/01 Intro.mp3`).
    public init(plain: String) throws(AssetPathError) {
        guard plain.utf8.count <= Self.maxLength else { throw .tooLong }
        guard !plain.isEmpty else { throw .empty }
        let parts = plain.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map {
            String(Substring($0))
        }
        if parts.contains(where: \.isEmpty) { throw .emptySegment }
        try self.init(segments: parts)
    }

    /// Segments joined by `/`, unencoded.
    public var description: String { segments.joined(separator: "/") }

    /// Segments percent-encoded (RFC 3986 unreserved characters kept) and joined by `/`.
    public var percentEncoded: String { segments.map(Self.percentEncode).joined(separator: "/") }

    /// Equal when every segment has the same bytes: two spellings of `é` are two files (see ``ExactString``).
    public static func == (a: AssetPath, b: AssetPath) -> Bool {
        a.segments.count == b.segments.count && zip(a.segments, b.segments).allSatisfy { $0.isByteEqual(to: $1) }
    }

    /// Feeds each segment's bytes.
    public func hash(into hasher: inout Hasher) {
        for segment in segments { segment.hashBytes(into: &hasher) }
    }

    private static func check(_ segment: String) throws(AssetPathError) {
        if segment.isEmpty { throw .emptySegment }
        if segment == "." || segment == ".." { throw .dotSegment }
        for byte in segment.utf8 {
            if byte < 0x20 || byte == 0x7F { throw .controlCharacter }
            if byte == UInt8(ascii: "\\") { throw .backslash }
            if byte == UInt8(ascii: "/") { throw .encodedSlash }
        }
    }

    private static func percentDecode(_ raw: Substring) throws(AssetPathError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(raw.utf8.count)
        var iterator = raw.utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next()?.hexDigitValue, let low = iterator.next()?.hexDigitValue else {
                throw .badEncoding
            }
            bytes.append(high << 4 | low)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else { throw .badEncoding }
        return text
    }

    /// `text` with every byte but RFC 3986's unreserved `A-Z a-z 0-9 - . _ ~` as `%XY`: a path segment here, and
    /// SigV4's encoding of query names and values, which follows the same rule.
    public static func percentEncode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            default:
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
