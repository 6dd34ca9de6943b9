import Foundation

/// A moment broken down into UTC calendar fields with `gmtime_r`, for the fixed, locale-free text formats
/// written on every request (log timestamps, HTTP dates) without ICU's cost.
struct UTCTime {
    private var fields = tm()

    /// Milliseconds within the second.
    let milliseconds: Int

    /// Breaks down `date` (sub-second part kept as milliseconds).
    init(_ date: Date) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        milliseconds = Int((date.timeIntervalSince1970 - seconds) * 1000)
        var whole = time_t(seconds)
        gmtime_r(&whole, &fields)
    }

    /// `2026-11-30T06:29:35.608Z` (ISO 8601 with milliseconds).
    var iso8601: String {
        Self.padded(Int(fields.tm_year) + 1900, 4) + "-" + Self.padded(Int(fields.tm_mon) + 1, 2) + "-"
            + Self.padded(Int(fields.tm_mday), 2) + "T" + clock + "." + Self.padded(milliseconds, 3) + "Z"
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate, RFC 9110 §5.6.7).
    var imfFixdate: String {
        Self.weekdays[Int(fields.tm_wday)] + ", " + Self.padded(Int(fields.tm_mday), 2) + " "
            + Self.months[Int(fields.tm_mon)] + " " + Self.padded(Int(fields.tm_year) + 1900, 4) + " " + clock + " GMT"
    }

    private var clock: String {
        Self.padded(Int(fields.tm_hour), 2) + ":" + Self.padded(Int(fields.tm_min), 2) + ":"
            + Self.padded(Int(fields.tm_sec), 2)
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private static func padded(_ value: Int, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
}
