/// What a GET answers once its Range header has been weighed against the representation's length.
///
/// Several ranges are answered as one 200: the satisfiable ones are sorted and coalesced (overlapping or
/// adjacent ranges merged); when they collapse to a single range the answer is that one 206, otherwise the
/// whole representation is sent with 200. RFC 9110 §14.2 lets a server ignore Range at any time, and media
/// players never ask for disjoint ranges, so the gateway never builds `multipart/byteranges`.
public enum RangeSelection: Hashable, Sendable {
    /// Answer 200 with the whole representation (no Range, a malformed one, or disjoint ranges).
    case whole
    /// Answer 206 with these bytes and `Content-Range: bytes first-last/length`.
    case single(ByteRange)
    /// Answer 416 with `Content-Range: bytes */length` (RFC 9110 §15.5.17).
    case unsatisfiable

    /// Weighs parsed specs against a representation of `length` bytes.
    public init(specs: [RangeSpec], length: Int64) {
        if specs.count == 1 {
            // One spec: nothing to sort or merge.
            self = specs[0].resolve(length: length).map(RangeSelection.single) ?? .unsatisfiable
            return
        }
        let ranges = specs.compactMap { $0.resolve(length: length) }.sorted { $0.first < $1.first }
        guard var merged = ranges.first else {
            // An empty list is no Range at all; a non-empty list with nothing satisfiable is 416 (RFC 9110 §14.1.3).
            self = specs.isEmpty ? .whole : .unsatisfiable
            return
        }
        for range in ranges.dropFirst() {
            guard range.first <= merged.end else {
                self = .whole
                return
            }
            merged = ByteRange(first: merged.first, last: max(merged.last, range.last))
        }
        self = .single(merged)
    }

    /// Parses and weighs a Range header value; nil or malformed headers select the whole representation.
    public init(header: String?, length: Int64) {
        if let header, let spec = RangeHeader.parsePlain(header) {
            self.init(plain: spec, length: length)
            return
        }
        guard let header, let specs = RangeHeader.parse(header) else {
            self = .whole
            return
        }
        self.init(specs: specs, length: length)
    }

    /// ``init(header:length:)`` of a value's bytes, read in place from the request: the form players send is
    /// parsed without making a string, anything else as text (invalid UTF-8 repaired, as a field read as text is).
    public init(headerBytes: UnsafeRawBufferPointer?, length: Int64) {
        guard let headerBytes else {
            self = .whole
            return
        }
        if let spec = RangeHeader.parsePlain(headerBytes) {
            self.init(plain: spec, length: length)
            return
        }
        self.init(header: String(decoding: headerBytes, as: UTF8.self), length: length)
    }

    /// The usual request: one spec, no list to sort or merge.
    private init(plain spec: RangeSpec, length: Int64) {
        self = spec.resolve(length: length).map(RangeSelection.single) ?? .unsatisfiable
    }
}
