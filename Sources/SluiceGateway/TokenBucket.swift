/// A token bucket: holds up to `burst` tokens, refills at `rate` per second, and a request takes one. Times are
/// monotonic nanoseconds.
struct TokenBucket: Equatable, Sendable {
    /// Tokens at `updated`.
    private(set) var tokens: Double
    /// When `tokens` was last brought up to date.
    private(set) var updated: Int64

    /// A full bucket at `now`.
    init(burst: Int, at now: Int64) {
        tokens = Double(burst)
        updated = now
    }

    /// Takes a token at `now`: nil when there was one, else the nanoseconds until there is (the bucket unchanged).
    mutating func take(rate: Double, burst: Int, at now: Int64) -> Int64? {
        refill(rate: rate, burst: burst, at: now)
        guard tokens < 1 else {
            tokens -= 1
            return nil
        }
        return Int64(((1 - tokens) / rate * 1e9).rounded(.up))
    }

    /// Whether the bucket has filled up again by `now` (a client that stopped long enough).
    func isFull(rate: Double, burst: Int, at now: Int64) -> Bool {
        var copy = self
        copy.refill(rate: rate, burst: burst, at: now)
        return copy.tokens >= Double(burst)
    }

    private mutating func refill(rate: Double, burst: Int, at now: Int64) {
        guard now > updated else { return }
        tokens = min(Double(burst), tokens + Double(now - updated) * rate / 1e9)
        updated = now
    }
}
