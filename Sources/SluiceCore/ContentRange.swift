/// A `Content-Range` field value (RFC 9110 §14.4) in the `bytes` unit: formatted for 206 and 416 answers,
/// parsed to check an upstream's 206 before trusting its bytes.
public enum ContentRange: Hashable, Sendable, CustomStringConvertible {
    /// `bytes first-last/length`, or `bytes first-last/*` when the complete length is unknown (nil).
    case partial(ByteRange, completeLength: Int64?)
    /// `bytes */length`, sent with 416.
    case unsatisfied(completeLength: Int64)

    /// The field value.
    public var description: String {
        // Up to "bytes " + three 19-digit numbers and their separators.
        ASCIIWriter.string(capacity: 72) { out in
            out.text("bytes ")
            switch self {
            case .partial(let range, let length):
                out.number(Int(range.first))
                out.text("-")
                out.number(Int(range.last))
                out.text("/")
                if let length { out.number(Int(length)) } else { out.text("*") }
            case .unsatisfied(let length):
                out.text("*/")
                out.number(Int(length))
            }
        }
    }

    /// Parses a field value; nil when it is malformed, not in bytes, or invalid per RFC 9110 §14.4
    /// (`last` < `first`, or a complete length not greater than `last`), or holding a number above ``ByteCount/maximum``.
    public static func parse(_ value: String) -> ContentRange? {
        let text = value.trimmingHTTPWhitespace()
        guard let space = text.firstIndex(of: " "), text[..<space].lowercased() == "bytes" else { return nil }
        let rest = text[text.index(after: space)...]
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let rangeText = rest[..<slash]
        let lengthText = rest[rest.index(after: slash)...]
        if rangeText == "*" {
            return lengthText.byteCountValue.map { .unsatisfied(completeLength: $0) }
        }
        guard let dash = rangeText.firstIndex(of: "-"),
            let first = rangeText[..<dash].byteCountValue,
            let last = rangeText[rangeText.index(after: dash)...].byteCountValue,
            first <= last
        else { return nil }
        let range = ByteRange(first: first, last: last)
        if lengthText == "*" { return .partial(range, completeLength: nil) }
        guard let length = lengthText.byteCountValue, length > last else { return nil }
        return .partial(range, completeLength: length)
    }
}
