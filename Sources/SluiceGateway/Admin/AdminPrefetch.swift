import Foundation

/// Progress of the latest prefetch of one asset (`prefetch` in `GET /admin/cache/assets/{upstream}/{path}`).
public struct AdminPrefetch: Codable, Sendable, Equatable {
    /// Where a prefetch is.
    public enum State: String, Codable, Sendable {
        /// Still fetching.
        case running
        /// Every requested byte went through the cache.
        case done
        /// Stopped early; `error` says why.
        case failed
    }

    /// Where the prefetch is.
    public var state: State
    /// Bytes of the requested ranges that are in the cache so far (those present before it started included).
    public var bytesDone: Int64
    /// Bytes of the requested ranges.
    public var bytesTotal: Int64
    /// Why it failed, or null.
    public var error: String?
    /// When it was accepted.
    public var startedAt: Date
    /// When it ended, or null while it runs.
    public var finishedAt: Date?

    /// Creates progress.
    public init(
        state: State, bytesDone: Int64, bytesTotal: Int64, error: String? = nil, startedAt: Date,
        finishedAt: Date? = nil
    ) {
        self.state = state
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.error = error
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    /// Encodes every field, absent ones as null.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state, forKey: .state)
        try container.encode(bytesDone, forKey: .bytesDone)
        try container.encode(bytesTotal, forKey: .bytesTotal)
        try container.encode(error, forKey: .error)
        try container.encode(startedAt, forKey: .startedAt)
        try container.encode(finishedAt, forKey: .finishedAt)
    }
}
