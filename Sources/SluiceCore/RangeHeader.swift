/// Parser for the `Range` request header (RFC 9110 §14.2) in the `bytes` unit.
public enum RangeHeader {
    /// Most range-specs accepted in one header; a longer list is treated as malformed and ignored, which
    /// RFC 9110 §14.2 allows ("a set of many small ranges") and which keeps a request from costing more than its answer.
    public static let maxRanges = 100

    /// Parses `bytes=range-set`. Returns nil when the header must be ignored (the caller answers 200 with the
    /// whole representation): another range unit, an empty set, a spec that is not `a-b`, `a-` or `-n`,
    /// `a-b` with `b < a`, a number above ``ByteCount/maximum``, or more than ``maxRanges`` specs.
    ///
    /// The unit is matched case-insensitively (RFC 9110 §14.1). Whitespace is tolerated around the whole value
    /// and around commas, and empty list elements are skipped (RFC 9110 §5.6.1); nowhere else.
    /// `bytes=-0` parses as `.suffix(count: 0)`: it is valid syntax that is unsatisfiable (RFC 9110 §14.1.3).
    public static func parse(_ value: String) -> [RangeSpec]? {
        if let spec = parsePlain(value) { return [spec] }
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

    /// The spec of a header in the form nearly every player sends, `bytes=a-b`, `bytes=a-` or `bytes=-n` with
    /// nothing around it, read without allocating; nil for anything else (including numbers above
    /// ``ByteCount/maximum``), which ``parse(_:)`` reads in full. Whatever this returns, the general parser would return too.
    /// Scans a native string's bytes in place.
    public static func parsePlain(_ value: String) -> RangeSpec? {
        value.utf8.withContiguousStorageIfAvailable(plainSpec) ?? plainSpec(in: Array(value.utf8))
    }

    /// The plain spec of a value's bytes, as for a string.
    public static func parsePlain(_ bytes: UnsafeRawBufferPointer) -> RangeSpec? {
        plainSpec(in: bytes)
    }

    private static func plainSpec<Bytes: Collection<UInt8>>(in bytes: Bytes) -> RangeSpec? {
        guard bytes.starts(with: unitPrefix) else { return nil }
        var first: Int64?
        var current: Int64?
        var sawDash = false
        for byte in bytes.dropFirst(6) {
            if byte == UInt8(ascii: "-") {
                guard !sawDash else { return nil }
                sawDash = true
                first = current
                current = nil
                continue
            }
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
            let (times10, overflow) = (current ?? 0).multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times10.addingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow, !overflowSum, sum <= ByteCount.maximum else { return nil }
            current = sum
        }
        guard sawDash else { return nil }
        switch (first, current) {
        case (nil, let count?): return .suffix(count: count)
        case (let first?, nil): return .from(first: first)
        case (let first?, let last?) where last >= first: return .bounded(first: first, last: last)
        default: return nil
        }
    }

    /// `bytes=` as bytes: comparing with a string's UTF-8 view walks it byte by byte through its index type.
    private static let unitPrefix = Array("bytes=".utf8)

    private static func parseSpec(_ text: Substring) -> RangeSpec? {
        guard let dash = text.firstIndex(of: "-") else { return nil }
        let head = text[..<dash]
        let tail = text[text.index(after: dash)...]
        if head.isEmpty {
            return tail.byteCountValue.map { .suffix(count: $0) }
        }
        guard let first = head.byteCountValue else { return nil }
        if tail.isEmpty { return .from(first: first) }
        guard let last = tail.byteCountValue, last >= first else { return nil }
        return .bounded(first: first, last: last)
    }
}
