import SluiceUpstream

extension FillCoordinator {
    /// Longest wait before resuming a fill, whatever a `Retry-After` asked for: a reader is waiting.
    static let maxRetryWait: Duration = .seconds(10)

    /// How long to wait before retry `attempt` (from 1) of a fill that broke with `error`: what a rate-limiting
    /// upstream's `Retry-After` asked for, else `base · 2^(attempt-1)` scaled by a random factor in [0.5, 1], so that
    /// fills broken together do not all come back together.
    static func retryDelay(after attempt: Int, error: UpstreamError?, base: Duration) -> Duration {
        if case .busy(_, let asked?) = error { return min(asked, maxRetryWait) }
        let exponential = base * (1 << min(max(attempt - 1, 0), 20))
        return min(exponential * Double.random(in: 0.5...1), maxRetryWait)
    }
}
