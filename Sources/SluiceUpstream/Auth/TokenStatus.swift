import Foundation

/// What the admin API and `/metrics` show of an upstream's renewable token: never the token.
public struct TokenStatus: Sendable, Equatable {
    /// `valid`, `refreshing` or `failed`.
    public var state: String
    /// When the access token in use expires (`valid` only).
    public var expiry: Date?
    /// Why the token cannot be had (`failed` only): names the upstream and the fix.
    public var reason: String?
    /// Refreshes made since start.
    public var refreshes: Int
    /// Refresh attempts that failed since start.
    public var failures: Int
}

extension Upstream {
    /// Upstreams with fixed credentials (or none) have no token status.
    public var tokenStatus: TokenStatus? { nil }
}
