import SluiceCore
import Testing

struct RangeSelectionTests {
    @Test(arguments: [
        (String?.none, Int64(10_000), RangeSelection.whole),
        ("bytes=0-499", 10_000, .single(ByteRange(first: 0, last: 499))),
        ("bytes=-500", 10_000, .single(ByteRange(first: 9_500, last: 9_999))),
        ("bytes=9500-", 10_000, .single(ByteRange(first: 9_500, last: 9_999))),
        ("bytes=0-", 10_000, .single(ByteRange(first: 0, last: 9_999))),
        // Malformed headers are ignored.
        ("bytes=abc", 10_000, .whole),
        ("items=0-5", 10_000, .whole),
        ("bytes=5-3", 10_000, .whole),
        // Nothing satisfiable: 416.
        ("bytes=10000-", 10_000, .unsatisfiable),
        ("bytes=-0", 10_000, .unsatisfiable),
        ("bytes=20000-30000,10000-", 10_000, .unsatisfiable),
        ("bytes=0-", 0, .unsatisfiable),
        ("bytes=-5", 0, .unsatisfiable),
        // Unsatisfiable members are dropped when another is satisfiable.
        ("bytes=20000-,0-9", 10_000, .single(ByteRange(first: 0, last: 9))),
        ("bytes=-0,0-9", 10_000, .single(ByteRange(first: 0, last: 9))),
        // Overlapping and adjacent ranges coalesce, in any order.
        ("bytes=500-600,601-999", 10_000, .single(ByteRange(first: 500, last: 999))),
        ("bytes=500-700,601-999", 10_000, .single(ByteRange(first: 500, last: 999))),
        ("bytes=601-999,500-600", 10_000, .single(ByteRange(first: 500, last: 999))),
        ("bytes=0-100,10-20", 10_000, .single(ByteRange(first: 0, last: 100))),
        ("bytes=0-4,5-9,10-", 20, .single(ByteRange(first: 0, last: 19))),
        ("bytes=-5,0-14", 20, .single(ByteRange(first: 0, last: 19))),
        // Disjoint ranges are answered as one 200.
        ("bytes=0-0,-1", 10_000, .whole),
        ("bytes=0-1,3-4", 10_000, .whole),
        ("bytes=0-1,3-4,2-2", 10_000, .single(ByteRange(first: 0, last: 4))),
    ])
    func selects(header: String?, length: Int64, expected: RangeSelection) {
        #expect(RangeSelection(header: header, length: length) == expected)
        // Read in place from a request's bytes, every header selects the same.
        let fromBytes = header.map { header in
            Array(header.utf8).withUnsafeBytes { RangeSelection(headerBytes: $0, length: length) }
        }
        #expect((fromBytes ?? RangeSelection(headerBytes: nil, length: length)) == expected)
    }

    /// Bytes that are not UTF-8 are read as text with the bad bytes replaced, as a field read as text is: never
    /// a range.
    @Test func bytesThatAreNotUTF8SelectTheWhole() {
        let bytes: [UInt8] = Array("bytes=0-".utf8) + [0xFF, 0x31]
        #expect(bytes.withUnsafeBytes { RangeSelection(headerBytes: $0, length: 100) } == .whole)
    }

    @Test func emptySpecListIsWhole() {
        #expect(RangeSelection(specs: [], length: 10) == .whole)
    }
}
