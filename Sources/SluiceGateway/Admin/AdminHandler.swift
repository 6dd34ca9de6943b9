import SluiceCache
import SluiceCore
import SluiceHTTP
import SluiceUpstream

/// Answers `/admin/*` and `/metrics` (contract §5).
struct AdminHandler: Sendable {
    /// The chunk store.
    let store: ChunkStore
    /// Fills in progress.
    let coordinator: FillCoordinator
    /// Content info and bodies through the cache (for prefetch).
    let serving: CachedServing
    /// Counters.
    let metrics: GatewayMetrics
    /// Upstream adapters by name.
    let upstreams: [String: any Upstream]
    /// Upstream configurations by name (kind, auth type; never print a secret).
    let upstreamConfigs: [String: UpstreamConfig]
    /// The admin bearer token; nil means admin calls answer 403.
    let adminToken: Secret?

    /// Answers one admin request.
    func respond(to request: HTTPRequest) async -> HTTPResponse {
        Problem.notFound("no such endpoint").response
    }
}
