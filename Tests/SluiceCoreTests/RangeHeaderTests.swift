import SluiceCore
import Testing

struct RangeHeaderTests {
    @Test(arguments: [
        // RFC 9110 §14.1.2 examples.
        ("bytes=0-499", [RangeSpec.bounded(first: 0, last: 499)]),
        ("bytes=500-999", [.bounded(first: 500, last: 999)]),
        ("bytes=-500", [.suffix(count: 500)]),
        ("bytes=9500-", [.from(first: 9500)]),
        ("bytes=0-0,-1", [.bounded(first: 0, last: 0), .suffix(count: 1)]),
        ("bytes=500-600,601-999", [.bounded(first: 500, last: 600), .bounded(first: 601, last: 999)]),
        ("bytes=500-700,601-999", [.bounded(first: 500, last: 700), .bounded(first: 601, last: 999)]),
        // Whitespace around the value and around commas, empty list elements (RFC 9110 §5.6.1).
        ("  bytes=0-1  ", [.bounded(first: 0, last: 1)]),
        ("\tbytes=0-1", [.bounded(first: 0, last: 1)]),
        ("bytes=0-1 , 5-6", [.bounded(first: 0, last: 1), .bounded(first: 5, last: 6)]),
        ("bytes=0-1,\t-2", [.bounded(first: 0, last: 1), .suffix(count: 2)]),
        ("bytes=,0-1,,", [.bounded(first: 0, last: 1)]),
        // The unit is case-insensitive (RFC 9110 §14.1).
        ("BYTES=1-2", [.bounded(first: 1, last: 2)]),
        ("Bytes=7-", [.from(first: 7)]),
        // A suffix of 0 and a one-byte range are valid syntax.
        ("bytes=-0", [.suffix(count: 0)]),
        ("bytes=5-5", [.bounded(first: 5, last: 5)]),
        ("bytes=0-9007199254740991", [.bounded(first: 0, last: ByteCount.maximum)]),
        ("bytes=007-010", [.bounded(first: 7, last: 10)]),
    ])
    func parsesValidHeaders(header: String, expected: [RangeSpec]) {
        #expect(RangeHeader.parse(header) == expected)
    }

    @Test(arguments: [
        "", "bytes", "bytes=", "bytes= ", "bytes=,", "bytes=abc", "items=0-5", "bytes=5-3", "bytes=-",
        "bytes=1-2-3", "bytes=--5", "bytes=+1-2", "bytes=1-+2", "bytes=0x10-", "bytes=1.5-2", "bytes = 0-1",
        "bytes =0-1", "bytes= 0 - 1", "bytes=0 -1", "bytes=0-1;2-3", "bytes=0-1,abc", "bytes=٣-4",
        "bytes=9223372036854775808-", "bytes=0-9223372036854775808", "bytes=-99999999999999999999999",
        "bytes=0-9007199254740992", "bytes=9223372036854775807-", "bytes=-9223372036854775807",
        "bytes=0-0\r\n", "bytes:0-1", "=0-1",
    ])
    func rejectsMalformedHeaders(header: String) {
        #expect(RangeHeader.parse(header) == nil)
    }

    @Test func acceptsUpToMaxRanges() {
        let specs = (0..<RangeHeader.maxRanges).map { "\($0 * 10)-\($0 * 10 + 1)" }
        #expect(RangeHeader.parse("bytes=" + specs.joined(separator: ","))?.count == RangeHeader.maxRanges)
        #expect(RangeHeader.parse("bytes=" + (specs + ["5000-"]).joined(separator: ",")) == nil)
    }

    @Test(arguments: [
        (RangeSpec.bounded(first: 0, last: 499), "0-499"),
        (.from(first: 9500), "9500-"),
        (.suffix(count: 500), "-500"),
    ])
    func describesSpecs(spec: RangeSpec, text: String) {
        #expect(spec.description == text)
        #expect(RangeHeader.parse("bytes=" + text) == [spec])
    }

    /// `parse` reads the common `bytes=a-b` form on a separate path; a leading space sends the same value through
    /// the general parser, which must agree on every input, including overflow and malformed numbers.
    @Test func plainFormAgreesWithTheGeneralParser() {
        var generator = SystemRandomNumberGenerator()
        let pieces = [
            "", "0", "7", "00", "42", "9007199254740991", "9007199254740992", "9223372036854775807",
            "9223372036854775808", "99999999999999999999", "-",
            "x", "+1", " ", "1 ",
        ]
        var values = ["bytes=", "bytes=-", "bytes=--1", "bytes=1--", "bytes=5-4", "bytes=4-5", "bytes=1-2-3"]
        for _ in 0..<2000 {
            let first = pieces.randomElement(using: &generator)!
            let last = pieces.randomElement(using: &generator)!
            values.append("bytes=\(first)-\(last)")
        }
        for value in values {
            #expect(RangeHeader.parse(value) == RangeHeader.parse(" " + value), "\(value)")
            let plain = RangeHeader.parsePlain(value)
            if let plain {
                #expect([plain] == RangeHeader.parse(" " + value), "\(value)")
            }
            #expect(Array(value.utf8).withUnsafeBytes { RangeHeader.parsePlain($0) } == plain, "\(value) as bytes")
        }
        #expect(RangeHeader.parsePlain("BYTES=1-2") == nil, "left to the general parser")
        #expect(RangeHeader.parsePlain("bytes=0-1,5-6") == nil)
    }
}
