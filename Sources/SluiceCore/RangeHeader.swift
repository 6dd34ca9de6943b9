/// Parser for the `Range` request header (RFC 9110 §14.2) in the `bytes` unit.
public enum RangeHeader {
    /// Most range-specs accepted in one header; a longer list is treated as malformed and ignored, which
    /// RFC 9110 §14.2 allows ("a set of many small ranges") and which keeps a request from costing more than its answer.
    public static let maxRanges = 100

    /// Parses `bytes=range-set`. Returns nil when the header must be ignored (the caller answers 200 with the
    /// whole representation): another range unit, an empty set, a spec that is not `a-b`, `a-` or `-n`,
    /// `a-b` with `b < a`, a number that does not fit in `Int64`, or more than ``maxRanges`` specs.
    ///
    /// The unit is matched case-insensitively (RFC 9110 §14.1). Whitespace is tolerated around the whole value
    /// and around commas, and empty list elements are skipped (RFC 9110 §5.6.1); nowhere else.
    /// `bytes=-0` parses as `.suffix(count: 0)`: it is valid syntax that is unsatisfiable (RFC 9110 §14.1.3).
    public static func parse(_ value: String) -> [RangeSpec]? {
        let trimmed = value.trimmingHTTPWhitespace()
        guard let equals = trimmed.firstIndex(of: "="),
            trimmed[..<equals].lowercased() == "bytes"
        else { return nil }
        var specs: [RangeSpec] = []
        for element in trimmed[trimmed.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
        {
            let text = element.trimmingHTTPWhitespace()
            if text.isEmpty { continue }
            guard specs.count < maxRanges, let spec = parseSpec(text) else { return nil }
            specs.append(spec)
        }
        return specs.isEmpty ? nil : specs
    }

    private static func parseSpec(_ text: Substring) -> RangeSpec? {
        guard let dash = text.firstIndex(of: "-") else { return nil }
        let head = text[..<dash]
        let tail = text[text.index(after: dash)...]
        if head.isEmpty {
            return tail.decimalValue.map { .suffix(count: $0) }
        }
        guard let first = head.decimalValue else { return nil }
        if tail.isEmpty { return .from(first: first) }
        guard let last = tail.decimalValue, last >= first else { return nil }
        return .bounded(first: first, last: last)
    }
}
