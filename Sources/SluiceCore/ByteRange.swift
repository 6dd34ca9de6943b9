/// An inclusive, non-empty range of byte offsets `first...last`, as in RFC 9110 §14.1.1.
public struct ByteRange: Hashable, Sendable, CustomStringConvertible {
    /// Offset of the first byte.
    public let first: Int64
    /// Offset of the last byte (inclusive).
    public let last: Int64

    /// Creates a range; `first` must be non-negative and not greater than `last`.
    public init(first: Int64, last: Int64) {
        precondition(first >= 0 && first <= last, "invalid byte range \(first)-\(last)")
        self.first = first
        self.last = last
    }

    /// Creates the range of `count` bytes starting at `offset` (`count` > 0).
    public init(offset: Int64, count: Int64) {
        self.init(first: offset, last: offset + count - 1)
    }

    /// Number of bytes in the range.
    public var count: Int64 { last - first + 1 }

    /// One past the last byte.
    public var end: Int64 { last + 1 }

    /// Whether `offset` lies inside the range.
    public func contains(_ offset: Int64) -> Bool { offset >= first && offset <= last }

    /// The overlap with `other`, or nil when they are disjoint.
    public func clamped(to other: ByteRange) -> ByteRange? {
        let lo = max(first, other.first)
        let hi = min(last, other.last)
        return lo <= hi ? ByteRange(first: lo, last: hi) : nil
    }

    /// `first-last`, the form used in `Content-Range` and logs.
    public var description: String { "\(first)-\(last)" }
}
