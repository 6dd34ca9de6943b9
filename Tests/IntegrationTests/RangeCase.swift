import SluiceTestSupport

/// One Range request against an object of known length and the answer RFC 9110 §14 requires.
struct RangeCase: Sendable, CustomStringConvertible {
    /// The `Range` field, or none for a plain GET.
    let header: String?
    /// First and last byte expected in the body (inclusive).
    let first: Int
    let last: Int

    /// 206 for any Range, 200 without one.
    var expectedStatus: Int { header == nil ? 200 : 206 }

    var description: String { header ?? "(no Range)" }

    /// The `Content-Range` a 206 must carry.
    func contentRange(length: Int) -> String { "bytes \(first)-\(last)/\(length)" }

    /// `bytes=a-b`, clipped to the object (RFC 9110 §14.1.2: a last-pos beyond the end means the end).
    static func bounded(_ first: Int, _ last: Int, length: Int) -> RangeCase {
        RangeCase(header: "bytes=\(first)-\(last)", first: first, last: min(last, length - 1))
    }

    /// `bytes=a-`.
    static func openEnded(_ first: Int, length: Int) -> RangeCase {
        RangeCase(header: "bytes=\(first)-", first: first, last: length - 1)
    }

    /// `bytes=-n`: the last n bytes, or the whole object when n exceeds it.
    static func suffix(_ count: Int, length: Int) -> RangeCase {
        RangeCase(header: "bytes=-\(count)", first: max(0, length - count), last: length - 1)
    }

    /// `count` cases over an object of `length` bytes: every form at least once (no Range, `0-`, first byte, last
    /// byte, `-1`, whole-object suffix, last-pos past the end, open-ended anywhere and near the end), the rest
    /// mostly bounded ranges of log-uniform size up to 4 MiB, with suffix and short open-ended ones mixed in.
    static func random(count: Int, length: Int, using generator: inout SeededGenerator) -> [RangeCase] {
        let limit = 4 << 20
        var cases: [RangeCase] = [
            RangeCase(header: nil, first: 0, last: length - 1),
            RangeCase(header: nil, first: 0, last: length - 1),
            .openEnded(0, length: length),
            .bounded(0, 0, length: length),
            .bounded(length - 1, length - 1, length: length),
            .suffix(1, length: length),
            .suffix(length, length: length),
            .suffix(length + 12345, length: length),
            .bounded(length - 100, length + 100_000, length: length),
            .openEnded(length - 1, length: length),
            .openEnded(Int.random(in: 0..<length, using: &generator), length: length),
            .openEnded(Int.random(in: 0..<length, using: &generator), length: length),
        ]
        func size() -> Int {
            let exponent = Int.random(in: 0...22, using: &generator)
            return min(limit, (1 << exponent) + Int.random(in: 0..<(1 << exponent), using: &generator))
        }
        while cases.count < count {
            switch Int.random(in: 0..<100, using: &generator) {
            case 0..<78:
                let span = size()
                let first = Int.random(in: 0...(length - span), using: &generator)
                cases.append(.bounded(first, first + span - 1, length: length))
            case 78..<90:
                cases.append(.suffix(size(), length: length))
            case 90..<96:
                cases.append(.openEnded(length - size(), length: length))
            case 96..<98:
                let at = Int.random(in: 0..<length, using: &generator)
                cases.append(.bounded(at, at, length: length))
            default:
                let first = Int.random(in: 0..<length, using: &generator)
                cases.append(.bounded(first, first + size() + length, length: length))
            }
        }
        return cases
    }
}
