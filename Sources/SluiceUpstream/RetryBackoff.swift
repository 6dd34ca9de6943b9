import SluiceCore

/// How often and how long to wait before asking an upstream again after it answered "busy" (500, 503): exponential
/// delays with jitter, so that gateways refused at once do not all come back at once, or the server's
/// `Retry-After` when it gives one in seconds, within a cap that keeps a client's wait bounded.
struct RetryBackoff: Sendable {
    /// Requests sent in all, the first included.
    var attempts = 3
    /// Delay before the second request, doubled for each later one.
    var base: Duration = .milliseconds(100)
    /// Longest single delay, `Retry-After` included.
    var cap: Duration = .seconds(5)

    /// Statuses that mean the server is busy rather than that the request is wrong.
    static let busyStatuses: Set = [500, 503]

    /// The delay before attempt `attempt + 1` after attempt `attempt` (from 1) failed: `Retry-After` delta-seconds
    /// when present, else `base · 2^(attempt-1)` scaled by a random factor in [0.5, 1].
    func delay(after attempt: Int, retryAfter: String?) -> Duration {
        if let text = retryAfter?.trimmingHTTPWhitespace(), let seconds = Int(text), seconds >= 0 {
            return min(.seconds(seconds), cap)
        }
        let exponential = base * (1 << min(max(attempt - 1, 0), 20))
        return min(exponential * Double.random(in: 0.5...1), cap)
    }
}
