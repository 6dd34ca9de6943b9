/// An upstream's requests in flight and waiting for a slot (see `upstreams.NAME.maxConcurrentRequests`).
public struct RequestLoad: Sendable, Equatable {
    /// Requests in flight at most.
    public var limit: Int
    /// Requests in flight now.
    public var active: Int
    /// Requests waiting for a slot now.
    public var waiting: Int
}

extension RequestSlots {
    /// The counts now.
    var load: RequestLoad { RequestLoad(limit: limit, active: active, waiting: waiting) }
}

extension Upstream {
    /// Upstreams that make no HTTP requests have no request load.
    public var requestLoad: RequestLoad? { nil }

    /// Kinds whose downloads come from elsewhere than their metadata (a cloud drive's content host, its own
    /// validators), or that need no round trip for content info (a local folder), ask for it first.
    public var fetchDescribesContent: Bool { false }
}
