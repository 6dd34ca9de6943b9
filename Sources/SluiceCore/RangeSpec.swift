/// One `range-spec` of a `bytes` Range header (RFC 9110 §14.1.2), before the representation's length is known.
public enum RangeSpec: Hashable, Sendable, CustomStringConvertible {
    /// `first-last`: an int-range with both positions (`last` ≥ `first`).
    case bounded(first: Int64, last: Int64)
    /// `first-`: from `first` to the end.
    case from(first: Int64)
    /// `-count`: the last `count` bytes.
    case suffix(count: Int64)

    /// The bytes this spec selects in a representation of `length` bytes, or nil when it selects none
    /// (unsatisfiable). Follows RFC 9110 §14.1.2: a `last` beyond the end is clamped to `length - 1`; a suffix
    /// longer than the representation selects all of it; a suffix of 0 and a `first` at or beyond the end select nothing.
    public func resolve(length: Int64) -> ByteRange? {
        guard length > 0 else { return nil }
        switch self {
        case .bounded(let first, let last):
            return first < length ? ByteRange(first: first, last: min(last, length - 1)) : nil
        case .from(let first):
            return first < length ? ByteRange(first: first, last: length - 1) : nil
        case .suffix(let count):
            return count > 0 ? ByteRange(first: max(0, length - count), last: length - 1) : nil
        }
    }

    /// The spec as written in a Range header: `a-b`, `a-` or `-n`.
    public var description: String {
        switch self {
        case .bounded(let first, let last): "\(first)-\(last)"
        case .from(let first): "\(first)-"
        case .suffix(let count): "-\(count)"
        }
    }
}
