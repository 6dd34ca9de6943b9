import SluiceCore
import Testing

struct QuantityTests {
    @Test(arguments: [
        ("100", Int64(100)), ("0", 0), ("100B", 100), ("100 b", 100), ("512KiB", 524_288), ("1MiB", 1_048_576),
        ("20GiB", 21_474_836_480), ("1TiB", 1_099_511_627_776), ("10KB", 10_000), ("5MB", 5_000_000),
        ("2GB", 2_000_000_000), ("1TB", 1_000_000_000_000), ("1mib", 1_048_576), (" 64 KiB ", 65_536),
        ("9007199254740991", ByteCount.maximum), ("8191TiB", 8_191 << 40),
    ])
    func parsesSizes(text: String, bytes: Int64) throws {
        #expect(try ByteSize.parse(text) == bytes)
    }

    @Test(arguments: [
        ("", QuantityError.empty), ("   ", .empty), ("-1", .negative), ("-1MiB", .negative), ("MiB", .malformed),
        ("1.5GiB", .malformed), ("1e6", .malformed), ("1_000", .malformed), ("0x10", .malformed),
        ("10 K B", .malformed), ("10PiB", .unknownUnit("PiB")), ("10K", .unknownUnit("K")), ("+5", .malformed),
        ("9007199254740992", .overflow), ("9223372036854775807", .overflow), ("9223372036854775808", .overflow),
        ("8192TiB", .overflow), ("8388608TiB", .overflow), ("99999999999999999999GiB", .overflow),
    ])
    func rejectsSizes(text: String, error: QuantityError) {
        #expect(throws: error) { try ByteSize.parse(text) }
    }

    @Test(arguments: [
        ("500ms", Duration.milliseconds(500)), ("30s", .seconds(30)), ("15m", .seconds(900)),
        ("12h", .seconds(43_200)), ("90d", .seconds(7_776_000)), ("0s", .zero), (" 2 h", .seconds(7_200)),
        ("36525d", DurationParser.maximum), ("3155760000000ms", DurationParser.maximum),
    ])
    func parsesDurations(text: String, duration: Duration) throws {
        #expect(try DurationParser.parse(text) == duration)
    }

    @Test(arguments: [
        ("", QuantityError.empty), ("30", .unknownUnit("")), ("-5s", .negative), ("1.5h", .malformed),
        ("5w", .unknownUnit("w")), ("5S", .unknownUnit("S")), ("5sec", .unknownUnit("sec")), ("1h30m", .malformed),
        ("999999999999999999d", .overflow), ("36526d", .overflow), ("3155760000001ms", .overflow),
        ("9223372036854775807s", .overflow), ("9223372036854775807ms", .overflow), ("106751991167301d", .overflow),
    ])
    func rejectsDurations(text: String, error: QuantityError) {
        #expect(throws: error) { try DurationParser.parse(text) }
    }

    @Test func describesErrorsWithoutTheValue() {
        #expect(QuantityError.unknownUnit("").description == "needs a unit")
        #expect(QuantityError.unknownUnit("PiB").description == "has an unknown unit \"PiB\"")
        #expect(QuantityError.overflow.description == "is too large")
    }
}
