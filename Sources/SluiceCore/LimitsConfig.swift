/// Per-client abuse limits (`server.limits`); a limit of 0 is off.
public struct LimitsConfig: Sendable, Equatable {
    /// Stream and `/resolve` requests one client may make per second, on average (the token bucket's rate; a
    /// fraction is allowed). The default leaves a player seeking far below it.
    public var requestsPerSecond: Double = 200
    /// Requests one client may make at once above that rate (the bucket's size).
    public var burst = 400
    /// Distinct assets one client may send to the upstream (requests the cache cannot answer at once) per minute:
    /// a client reading one asset after another would push every other asset out of the cache.
    public var newAssetsPerMinute = 120

    /// Defaults.
    public init() {}
}
