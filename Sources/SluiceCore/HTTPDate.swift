import Foundation

/// HTTP-date (RFC 9110 §5.6.7): written as IMF-fixdate, read in all three forms a recipient must accept.
/// Parses with Foundation's `Date.ParseStrategy` (`Sendable`, shared); formats with ``UTCTime`` (no ICU per call:
/// every stream response carries a `Last-Modified`) and remembers recent texts in ``HTTPDateMemo``.
public enum HTTPDate {
    /// `Sun, 06 Nov 1994 08:49:37 GMT`; fractions of a second are dropped.
    public static func format(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard let whole = Int64(exactly: seconds) else { return UTCTime(date).imfFixdate }
        return formatted.text(forSeconds: whole) { UTCTime(date).imfFixdate }
    }

    private static let formatted = HTTPDateMemo()

    /// Parses IMF-fixdate, the obsolete RFC 850 form (`Sunday, 06-Nov-94 08:49:37 GMT`) or asctime
    /// (`Sun Nov  6 08:49:37 1994`); nil for anything else. `now` places RFC 850's two-digit years:
    /// one that would lie more than 50 years in the future is taken from the past century (RFC 9110 §5.6.7).
    public static func parse(_ text: String, now: Date = Date()) -> Date? {
        let value = String(text.trimmingHTTPWhitespace())
        // ICU stops at the end of what it recognises and tolerates a missing trailing literal, so the whole
        // value must match and the zone must be there.
        if value.hasSuffix(" GMT") {
            return value.wholeMatch(of: imfFixdate)?.output
                ?? value.wholeMatch(of: rfc850).map { placeCentury($0.output, now: now) }
        }
        return value.wholeMatch(of: asctime)?.output
    }

    private static let posix = Locale(identifier: "en_US_POSIX")
    private static let gmt = TimeZone(identifier: "GMT")!
    private static let gregorian: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = gmt
        return calendar
    }()
    private static let imfFixdateFormat: Date.FormatString = """
        \(weekday: .abbreviated), \(day: .twoDigits) \(month: .abbreviated) \(year: .padded(4)) \
        \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\
        \(second: .twoDigits) GMT
        """

    private static let imfFixdate = Date.ParseStrategy(
        format: imfFixdateFormat, locale: posix, timeZone: gmt, calendar: gregorian, isLenient: false)

    private static let asctime = Date.ParseStrategy(
        format: """
            \(weekday: .abbreviated) \(month: .abbreviated) \(day: .defaultDigits) \
            \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\
            \(second: .twoDigits) \(year: .defaultDigits)
            """,
        locale: posix, timeZone: gmt, calendar: gregorian, isLenient: false)

    private static let rfc850 = Date.ParseStrategy(
        format: """
            \(weekday: .wide), \(day: .twoDigits)-\(month: .abbreviated)-\(year: .twoDigits) \
            \(hour: .twoDigits(clock: .twentyFourHour, hourCycle: .zeroBased)):\(minute: .twoDigits):\
            \(second: .twoDigits) GMT
            """,
        locale: posix, timeZone: gmt, calendar: gregorian, isLenient: false)

    /// Moves a date parsed from a two-digit year by a century so that it is at most 50 years after `now`
    /// and less than 50 years before it (RFC 9110 §5.6.7). ICU only compares years, so this is done here.
    private static func placeCentury(_ date: Date, now: Date) -> Date {
        guard let limit = gregorian.date(byAdding: .year, value: 50, to: now),
            let earlier = gregorian.date(byAdding: .year, value: -100, to: date),
            let later = gregorian.date(byAdding: .year, value: 100, to: date)
        else { return date }
        if date > limit { return placeCentury(earlier, now: now) }
        return later <= limit ? placeCentury(later, now: now) : date
    }
}
