import SluiceCore
import Testing

struct ContentRangeTests {
    @Test(arguments: [
        (ContentRange.partial(ByteRange(first: 0, last: 499), completeLength: 1_234), "bytes 0-499/1234"),
        (.partial(ByteRange(first: 21_010, last: 47_021), completeLength: 47_022), "bytes 21010-47021/47022"),
        (.partial(ByteRange(first: 42, last: 1_233), completeLength: nil), "bytes 42-1233/*"),
        (.unsatisfied(completeLength: 1_234), "bytes */1234"),
        (.unsatisfied(completeLength: 0), "bytes */0"),
    ])
    func formatsAndParsesBack(value: ContentRange, text: String) {
        #expect(value.description == text)
        #expect(ContentRange.parse(text) == value)
    }

    /// Numbers are written digit by digit: every length of number, up to `Int64.max`, reads as interpolation does.
    @Test func writesEveryNumberExactly() {
        let powers = (0...18).map { exponent in (0..<exponent).reduce(Int64(1)) { power, _ in power * 10 } }
        for first in powers.flatMap({ [$0 - 1, $0, $0 + 7] }) + [Int64.max - 1] {
            let range = ByteRange(first: first, last: Int64.max - 1)
            #expect(
                ContentRange.partial(range, completeLength: Int64.max).description
                    == "bytes \(first)-\(Int64.max - 1)/\(Int64.max)")
        }
    }

    @Test(arguments: [
        (" bytes 0-0/1 ", ContentRange.partial(ByteRange(first: 0, last: 0), completeLength: 1)),
        ("Bytes 5-9/10", .partial(ByteRange(first: 5, last: 9), completeLength: 10)),
    ])
    func parsesLenientForms(text: String, expected: ContentRange) {
        #expect(ContentRange.parse(text) == expected)
    }

    @Test(arguments: [
        "", "bytes", "bytes 0-499", "bytes 0-499/", "bytes 499-0/1234", "bytes 0-1234/1234", "bytes 0-1300/1234",
        "bytes */*", "bytes -5/10", "bytes 5-/10", "bytes 0-4/abc", "items 0-4/10", "bytes=0-4/10", "bytes  0-4/10",
        "bytes 0-4 /10", "bytes 0-9223372036854775808/*", "bytes */-1", "bytes 1-2/3/4",
        // Above ByteCount.maximum.
        "bytes 0-1/9007199254740992", "bytes */9223372036854775807", "bytes 9007199254740992-9007199254740993/*",
    ])
    func rejectsInvalidValues(text: String) {
        #expect(ContentRange.parse(text) == nil)
    }
}
