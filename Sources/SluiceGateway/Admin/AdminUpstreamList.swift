/// `GET /admin/upstreams`.
public struct AdminUpstreamList: Codable, Sendable, Equatable {
    /// Every configured upstream, by name.
    public var upstreams: [AdminUpstream]

    /// Creates a list.
    public init(upstreams: [AdminUpstream]) { self.upstreams = upstreams }
}
