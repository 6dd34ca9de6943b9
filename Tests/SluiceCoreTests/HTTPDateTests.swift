import Foundation
import SluiceCore
import Testing

struct HTTPDateTests {
    /// 1994-11-06 08:49:37 UTC, the RFC 9110 §5.6.7 example.
    static let example = Date(timeIntervalSince1970: 784_111_777)
    static let now = Date(timeIntervalSince1970: 1_780_000_000)  // 2026-05-28

    @Test(arguments: [
        (Date(timeIntervalSince1970: 784_111_777), "Sun, 06 Nov 1994 08:49:37 GMT"),
        (Date(timeIntervalSince1970: 784_111_777.9), "Sun, 06 Nov 1994 08:49:37 GMT"),
        (Date(timeIntervalSince1970: 0), "Thu, 01 Jan 1970 00:00:00 GMT"),
        (Date(timeIntervalSince1970: 951_782_400), "Tue, 29 Feb 2000 00:00:00 GMT"),
        (Date(timeIntervalSince1970: 4_102_444_799), "Thu, 31 Dec 2099 23:59:59 GMT"),
    ])
    func formatsIMFFixdate(date: Date, text: String) {
        #expect(HTTPDate.format(date) == text)
        #expect(
            HTTPDate.parse(text)
                == date.addingTimeInterval(-date.timeIntervalSince1970.truncatingRemainder(dividingBy: 1)))
    }

    /// Formatted dates are remembered in a small table by whole second: dates sharing a slot (seconds 64 apart),
    /// before 1970 and formatted from several threads at once each still get their own text, as Foundation's
    /// formatter writes it.
    @Test func rememberedDatesStayExact() async {
        let reference = DateFormatter()
        reference.locale = Locale(identifier: "en_US_POSIX")
        reference.timeZone = TimeZone(identifier: "GMT")
        reference.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        let seconds = (0..<400).map { Int64(-2_000_000_000) + Int64($0 % 40) * 64 + Int64($0 / 40) * 1_000_003_001 }
        let expected = seconds.map { reference.string(from: Date(timeIntervalSince1970: Double($0))) }
        let mismatches = await withTaskGroup(of: Int.self) { group in
            for task in 0..<4 {
                group.addTask {
                    var wrong = 0
                    for round in 0..<5 {
                        for index in seconds.indices.shuffled() where (index + round + task) % 3 != 0 {
                            let date = Date(timeIntervalSince1970: Double(seconds[index]) + 0.5)
                            if HTTPDate.format(date) != expected[index] { wrong += 1 }
                        }
                    }
                    return wrong
                }
            }
            return await group.reduce(0, +)
        }
        #expect(mismatches == 0)
    }

    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT",  // IMF-fixdate
        "Sunday, 06-Nov-94 08:49:37 GMT",  // obsolete RFC 850
        "Sun Nov  6 08:49:37 1994",  // asctime
        "Sun Nov 16 08:49:37 1994",
        "  Sun, 06 Nov 1994 08:49:37 GMT ",
    ])
    func parsesAllThreeForms(text: String) {
        let expected = text.contains("16") ? Self.example.addingTimeInterval(10 * 86_400) : Self.example
        #expect(HTTPDate.parse(text, now: Self.now) == expected)
    }

    @Test(arguments: [
        // Two-digit years more than 50 years ahead of `now` (2026) belong to the past century.
        ("Thursday, 01-Jan-70 00:00:00 GMT", 2070), ("Thursday, 01-Jan-76 00:00:00 GMT", 2076),
        ("Tuesday, 01-Dec-76 00:00:00 GMT", 1976),
        ("Saturday, 01-Jan-77 00:00:00 GMT", 1977), ("Saturday, 01-Jan-00 00:00:00 GMT", 2000),
        ("Thursday, 01-Jan-26 00:00:00 GMT", 2026), ("Sunday, 06-Nov-94 08:49:37 GMT", 1994),
    ])
    func placesTwoDigitYears(text: String, year: Int) throws {
        let date = try #require(HTTPDate.parse(text, now: Self.now))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        #expect(calendar.component(.year, from: date) == year)
    }

    @Test(arguments: [
        "", "yesterday", "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994 08:49:37", "1994-11-06T08:49:37Z",
        "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 31 Feb 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
        "784111777", "Sun, 06 Nov 1994 08:49:37 GMT, Mon, 07 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMTX",
        "Sun Nov  6 08:49:37 1994 GMT", "Sunday, 06-Nov-94 08:49:37",
    ])
    func rejectsOtherText(text: String) {
        #expect(HTTPDate.parse(text, now: Self.now) == nil)
    }
}

extension HTTPDateTests {
    @Test(arguments: [
        (-2_208_988_800.0, 1894),  // now = 1900-01-01: window 1850…1950
        (-631_152_000.0, 1994),  // now = 1950-01-01: window 1900…2000
        (4_102_444_800.0, 2094),  // now = 2100-01-01: window 2050…2150
    ])
    func placesTwoDigitYearsRelativeToNow(now: Double, year: Int) throws {
        let date = try #require(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT", now: Date(timeIntervalSince1970: now)))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "GMT")!
        #expect(calendar.component(.year, from: date) == year)
        #expect(calendar.component(.second, from: date) == 37)
    }
}
