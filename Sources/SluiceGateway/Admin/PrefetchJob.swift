import SluiceCache
import SluiceCore
import SluiceHTTP
import SluiceUpstream

/// Pulls the missing parts of a prefetch through the cache, as a player would, so that the fill coordinator
/// shares the upstream fetches with any concurrent reader and writes every chunk into the store. Runs as a
/// detached task; its progress goes to the registry.
struct PrefetchJob: Sendable {
    /// The asset.
    let asset: AssetID
    /// The version being cached.
    let info: ContentInfo
    /// Where missing bytes come from.
    let upstream: any Upstream
    /// What to fetch.
    let plan: PrefetchPlan
    /// The chunk store.
    let store: ChunkStore
    /// Shares fetches among readers.
    let coordinator: FillCoordinator
    /// Counters (upstream errors of the prefetch are counted here; upstream bytes by the coordinator).
    let metrics: GatewayMetrics
    /// Where progress goes.
    let registry: PrefetchRegistry

    /// Bytes asked of a body per read.
    private static let bufferSize = 256 << 10

    /// Fetches every missing range in turn; the first failure ends the prefetch.
    func run() async {
        let key = asset.description
        // The bytes a prefetch reads are sent to no client (no traffic to count them in); what it fetches counts
        // as fetched for a prefetch.
        for range in plan.missing {
            let body = CachedBody(
                context: ReaderContext(asset: asset, info: info, upstream: upstream, range: range, reason: .prefetch),
                range: range, store: store, coordinator: coordinator, traffic: nil, missingAtStart: [])
            let failure = await pull(body, count: range.count)
            body.close(completed: failure == nil)
            if let failure {
                registry.fail(key, reason: failure)
                return
            }
        }
        registry.finish(key)
    }

    /// Reads `body` to its end; returns why it stopped early, if it did.
    private func pull(_ body: CachedBody, count: Int64) async -> String? {
        var buffer = [UInt8](repeating: 0, count: Self.bufferSize)
        var offset: Int64 = 0
        while offset < count {
            if Task.isCancelled { return "stopped by a purge" }
            let step = buffer.withUnsafeMutableBytes { body.read(at: offset, into: $0) }
            switch step {
            case .bytes(let n):
                offset += Int64(n)
                registry.advance(asset.description, by: Int64(n))
            case .pending:
                await withCheckedContinuation { continuation in body.onReadable { continuation.resume() } }
            case .failed:
                guard let failure = body.failure else { return "the cache could not store or read the bytes" }
                if case .upstream(let error) = failure { metrics.recordUpstreamError(error, upstream: asset.upstream) }
                return failure.problem.detail ?? failure.problem.title
            }
        }
        return nil
    }
}
