/// An entity tag (RFC 9110 §8.8.3): an opaque quoted string, possibly marked weak with `W/`.
public struct EntityTag: Hashable, Sendable, CustomStringConvertible {
    /// Whether the tag carries the `W/` prefix.
    public var isWeak: Bool
    /// The characters between the quotes.
    public var opaque: String

    /// Creates a tag.
    public init(opaque: String, isWeak: Bool = false) {
        self.opaque = opaque
        self.isWeak = isWeak
    }

    /// Parses one entity tag such as `"abc"` or `W/"abc"` (surrounding whitespace allowed); nil if malformed.
    public init?(parsing text: String) {
        var scanner = EntityTagScanner(Substring(text.trimmingHTTPWhitespace()))
        guard let tag = scanner.next(), scanner.isAtEnd else { return nil }
        self = tag
    }

    /// Parses a comma-separated list of entity tags (the If-Match / If-None-Match syntax without `*`),
    /// skipping empty elements; nil if any element is malformed.
    public static func parseList(_ text: String) -> [EntityTag]? {
        var scanner = EntityTagScanner(Substring(text))
        var tags: [EntityTag] = []
        while true {
            scanner.skipListSeparators()
            if scanner.isAtEnd { return tags }
            guard let tag = scanner.next() else { return nil }
            tags.append(tag)
            guard scanner.atListSeparatorOrEnd else { return nil }
        }
    }

    /// The tag as written on the wire: `"abc"` or `W/"abc"`.
    public var description: String { (isWeak ? "W/" : "") + "\"" + opaque + "\"" }

    /// Strong comparison (RFC 9110 §8.8.3.2): neither tag is weak and the opaque parts are identical.
    public func strongMatches(_ other: EntityTag) -> Bool {
        !isWeak && !other.isWeak && opaque == other.opaque
    }

    /// Weak comparison (RFC 9110 §8.8.3.2): the opaque parts are identical, whatever the weakness.
    public func weakMatches(_ other: EntityTag) -> Bool {
        opaque == other.opaque
    }
}

/// Reads entity tags from a field value. `etagc` may include commas (RFC 9110 §8.8.3), so lists cannot be
/// split on commas before the quotes are matched.
private struct EntityTagScanner {
    private var rest: Substring.UTF8View

    init(_ text: Substring) { rest = text.utf8 }

    var isAtEnd: Bool { rest.isEmpty }

    var atListSeparatorOrEnd: Bool {
        guard let byte = rest.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) else {
            return true
        }
        return byte == UInt8(ascii: ",")
    }

    mutating func skipListSeparators() {
        rest = rest.drop { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: ",") }
    }

    mutating func next() -> EntityTag? {
        let isWeak = rest.starts(with: "W/".utf8)
        if isWeak { rest = rest.dropFirst(2) }
        guard rest.first == UInt8(ascii: "\"") else { return nil }
        let body = rest.dropFirst()
        guard let close = body.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let opaque = body[..<close]
        // etagc = %x21 / %x23-7E / obs-text: no controls, spaces or DEL.
        guard opaque.allSatisfy({ $0 == 0x21 || ($0 >= 0x23 && $0 != 0x7F) }) else { return nil }
        rest = body[body.index(after: close)...]
        return EntityTag(opaque: String(decoding: opaque, as: UTF8.self), isWeak: isWeak)
    }
}
