import SluiceCore
import SluiceTestSupport
import Testing

@testable import SluiceUpstream

/// Every parser of a number that arrives from outside (an upstream's `Content-Length` and `Content-Range`, a client's
/// `Range`, the configuration's sizes and durations) either refuses a digit string or yields a value that the byte
/// arithmetic can add a chunk to and round up to whole chunks without overflow.
@Suite struct NumberParserPropertyTests {
    /// The largest chunk size the configuration accepts.
    static let chunkSize: Int64 = 64 << 20

    /// Digit strings around every power of two and ten that fits 64 bits, plus random ones up to 40 digits long,
    /// with and without leading zeros.
    static func digitStrings(seed: UInt64) -> [String] {
        var texts: Set<String> = [
            "0", "00", "1", String(ByteCount.maximum), String(UInt64.max), "1" + String(UInt64.max),
        ]
        for exponent in 0..<64 {
            let power = UInt64(1) << exponent
            for value in [power &- 1, power, power &+ 1] { texts.insert(String(value)) }
        }
        for digits in 1...20 {
            let nines = String(repeating: "9", count: digits)
            texts.formUnion([nines, "1" + String(repeating: "0", count: digits), "000" + nines])
        }
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<3_000 {
            let count = Int.random(in: 1...40, using: &generator)
            texts.insert(String((0..<count).map { _ in "0123456789".randomElement(using: &generator)! }))
        }
        return texts.sorted()
    }

    /// Whether `value` is a byte count the arithmetic can use.
    static func isSafe(_ value: Int64) -> Bool {
        guard value >= 0 else { return false }
        let (sum, overflow) = value.addingReportingOverflow(chunkSize)
        guard !overflow else { return false }
        let (rounded, overflowRounded) = (sum / chunkSize).multipliedReportingOverflow(by: chunkSize)
        let (doubled, overflowDoubled) = value.addingReportingOverflow(value)
        return !overflowRounded && rounded >= value && !overflowDoubled && doubled >= value
    }

    @Test func byteCountsAreRefusedOrSafe() throws {
        let seed: UInt64 = 0x5EED_0026
        for text in Self.digitStrings(seed: seed) {
            let context = Comment(rawValue: "\(text) (seed \(seed))")
            if let length = try? CurlResponseHead(status: 200, fields: [("content-length", text)]).contentLength() {
                #expect(Self.isSafe(length), context)
            }
            for range in ["bytes=\(text)-", "bytes=0-\(text)", "bytes=-\(text)", "bytes=\(text)-\(text)"] {
                for spec in RangeHeader.parse(range) ?? [] {
                    let values: [Int64] =
                        switch spec {
                        case .bounded(let first, let last): [first, last]
                        case .from(let first): [first]
                        case .suffix(let count): [count]
                        }
                    #expect(values.allSatisfy(Self.isSafe), context)
                }
            }
            for field in ["bytes 0-\(text)/*", "bytes \(text)-\(text)/*", "bytes */\(text)", "bytes 0-0/\(text)"] {
                switch ContentRange.parse(field) {
                case .partial(let range, let total)?:
                    #expect(Self.isSafe(range.first) && Self.isSafe(range.last), context)
                    #expect(total.map(Self.isSafe) ?? true, context)
                case .unsatisfied(let total)?:
                    #expect(Self.isSafe(total), context)
                case nil:
                    break
                }
            }
            for unit in ["", "B", "KiB", "MiB", "GiB", "TiB", "TB"] {
                if let bytes = try? ByteSize.parse(text + unit) { #expect(Self.isSafe(bytes), context) }
            }
            for unit in ["ms", "s", "m", "h", "d"] {
                guard let duration = try? DurationParser.parse(text + unit) else { continue }
                // libmicrohttpd takes whole seconds in 32 bits, libcurl milliseconds in a long.
                let seconds = duration.components.seconds
                #expect(seconds >= 0 && seconds <= Int64(UInt32.max), context)
                #expect(!seconds.multipliedReportingOverflow(by: 1_000).overflow, context)
            }
        }
    }

    @Test(arguments: ["-5", "+5", "5.0", "1e3", "0x10", "9007199254740992", "9223372036854775807", "", "5 5"])
    func contentLengthOutsideByteCountsIsAProtocolViolation(text: String) {
        #expect(throws: UpstreamError.self) {
            try CurlResponseHead(status: 200, fields: [("content-length", text)]).contentLength()
        }
    }
}
