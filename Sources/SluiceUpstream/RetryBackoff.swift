import Foundation
import SluiceCore

/// How often and how long to wait before asking an upstream again after it answered "busy" (429, 500, 503):
/// exponential delays with jitter, so that gateways refused at once do not all come back at once, or the server's
/// `Retry-After` (seconds or an HTTP-date), within a cap that keeps a client's wait bounded.
struct RetryBackoff: Sendable {
    /// Requests sent in all, the first included.
    var attempts = 3
    /// Delay before the second request, doubled for each later one.
    var base: Duration = .milliseconds(100)
    /// Longest single delay, `Retry-After` included.
    var cap: Duration = .seconds(5)

    /// Statuses that mean the server is busy rather than that the request is wrong.
    static let busyStatuses: Set = [429, 500, 503]

    /// The delay before attempt `attempt + 1` after attempt `attempt` (from 1) failed: `Retry-After` delta-seconds
    /// when present, else `base · 2^(attempt-1)` scaled by a random factor in [0.5, 1].
    func delay(after attempt: Int, retryAfter: String?) -> Duration {
        if let asked = Self.retryAfter(retryAfter) { return min(asked, cap) }
        let exponential = base * (1 << min(max(attempt - 1, 0), 20))
        return min(exponential * Double.random(in: 0.5...1), cap)
    }

    /// The delay before attempt `attempt + 1` after attempt `attempt` broke with `error`: what a busy upstream's
    /// `Retry-After` asked for, else as ``delay(after:retryAfter:)``.
    func delay(after attempt: Int, error: UpstreamError) -> Duration {
        if case .busy(_, let asked?) = error { return min(asked, cap) }
        return delay(after: attempt, retryAfter: nil)
    }

    /// The wait a `Retry-After` value asks for (RFC 9110 §10.2.3): delta-seconds, or an HTTP-date from `now`
    /// (none when it has passed); nil when absent or malformed.
    static func retryAfter(_ value: String?, now: Date = Date()) -> Duration? {
        guard let text = value?.trimmingHTTPWhitespace(), !text.isEmpty else { return nil }
        if let seconds = text.byteCountValue { return .seconds(min(seconds, 86_400)) }
        guard let date = HTTPDate.parse(String(text)) else { return nil }
        return .milliseconds(Int64(max(0, min(date.timeIntervalSince(now), 86_400)) * 1_000))
    }
}
