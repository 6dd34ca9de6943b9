import SluiceCore
import Testing

struct RangeSpecTests {
    @Test(arguments: [
        // RFC 9110 §14.1.2 examples against a 10000-byte representation.
        (RangeSpec.bounded(first: 0, last: 499), Int64(10_000), ByteRange?.some(ByteRange(first: 0, last: 499))),
        (.bounded(first: 500, last: 999), 10_000, ByteRange(first: 500, last: 999)),
        (.suffix(count: 500), 10_000, ByteRange(first: 9_500, last: 9_999)),
        (.from(first: 9_500), 10_000, ByteRange(first: 9_500, last: 9_999)),
        (.bounded(first: 0, last: 0), 10_000, ByteRange(first: 0, last: 0)),
        (.suffix(count: 1), 10_000, ByteRange(first: 9_999, last: 9_999)),
        // Clamping and whole-representation suffixes.
        (.bounded(first: 10, last: 1_000_000), 100, ByteRange(first: 10, last: 99)),
        (.bounded(first: 0, last: Int64.max), 100, ByteRange(first: 0, last: 99)),
        (.bounded(first: 99, last: 99), 100, ByteRange(first: 99, last: 99)),
        (.suffix(count: 1_000), 100, ByteRange(first: 0, last: 99)),
        (.suffix(count: 100), 100, ByteRange(first: 0, last: 99)),
        (.suffix(count: Int64.max), 100, ByteRange(first: 0, last: 99)),
        (.from(first: 0), 1, ByteRange(first: 0, last: 0)),
        (.from(first: 5), Int64.max, ByteRange(first: 5, last: Int64.max - 1)),
        // Unsatisfiable (RFC 9110 §14.1.3).
        (.bounded(first: 100, last: 200), 100, nil),
        (.from(first: 100), 100, nil),
        (.from(first: Int64.max), 100, nil),
        (.suffix(count: 0), 100, nil),
        (.from(first: 0), 0, nil),
        (.suffix(count: 5), 0, nil),
        (.bounded(first: 0, last: 0), 0, nil),
    ])
    func resolves(spec: RangeSpec, length: Int64, expected: ByteRange?) {
        #expect(spec.resolve(length: length) == expected)
    }
}
