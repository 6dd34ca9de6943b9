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
        format(capacity: 32) { out in
            out.number(Int(fields.tm_year) + 1900, 4)
            out.text("-")
            out.number(Int(fields.tm_mon) + 1, 2)
            out.text("-")
            out.number(Int(fields.tm_mday), 2)
            out.text("T")
            clock(&out)
            out.text(".")
            out.number(milliseconds, 3)
            out.text("Z")
        }
    }

    /// `Sun, 06 Nov 1994 08:49:37 GMT` (IMF-fixdate, RFC 9110 §5.6.7).
    var imfFixdate: String {
        format(capacity: 32) { out in
            out.text(Self.weekdays[Int(fields.tm_wday)])
            out.text(", ")
            out.number(Int(fields.tm_mday), 2)
            out.text(" ")
            out.text(Self.months[Int(fields.tm_mon)])
            out.text(" ")
            out.number(Int(fields.tm_year) + 1900, 4)
            out.text(" ")
            clock(&out)
            out.text(" GMT")
        }
    }

    private func clock(_ out: inout ASCIIWriter) {
        out.number(Int(fields.tm_hour), 2)
        out.text(":")
        out.number(Int(fields.tm_min), 2)
        out.text(":")
        out.number(Int(fields.tm_sec), 2)
    }

    private static let weekdays: [StaticString] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months: [StaticString] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]

    private func format(capacity: Int, _ write: (inout ASCIIWriter) -> Void) -> String {
        ASCIIWriter.string(capacity: capacity, write)
    }
}
